"""The Family A API calls of ``tally.credits`` and ``tally.spend_limits``: one transport.

An answer other than 2xx raises :class:`TallyApiError`; a call marked ``retry`` is sent again
after a network error, a 429 or a 5xx, with the event batches' backoff and ``Retry-After``.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Dict, Mapping, Optional, Tuple, Union
from urllib.parse import quote, urlencode

from .backoff import BackoffOptions, parse_retry_after, retry_delay
from .errors import TallyApiError

Money = Union[Decimal, int, str]
"""A decimal amount: ``Decimal``, ``int`` or decimal ``str`` (a ``float`` is refused: it is not exact)."""


@dataclass(frozen=True)
class ApiTransport:
    """How the API calls reach the service (set up by ``Tally``)."""

    target: Tuple[str, str, Optional[int]]
    v1: str
    api_key: Optional[str]
    agent_key: Optional[str]
    user_agent: str
    timeout_ms: int
    max_retries: int
    backoff: BackoffOptions


def call(
    t: ApiTransport,
    method: str,
    path: str,
    *,
    query: Optional[Mapping[str, Any]] = None,
    body: Optional[Mapping[str, Any]] = None,
    headers: Optional[Mapping[str, str]] = None,
    as_agent: bool = False,
    retry: bool,
) -> Dict[str, Any]:
    secret = t.agent_key if as_agent else t.api_key
    if not secret:
        raise TallyApiError("missing_credentials", "this call needs the agent secret (`agent_key`)" if as_agent else "this call needs an API key (`api_key`)", 0)
    h = {"user-agent": t.user_agent, **(headers or {})}
    if as_agent:
        h["x-agent-secret"] = secret
    else:
        h["authorization"] = f"Bearer {secret}"
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        h["content-type"] = "application/json"
    url = t.v1 + path + ("?" + urlencode(query) if query else "")
    attempt = 0
    while True:
        try:
            return _once(t, method, url, data, h)
        except (OSError, http.client.HTTPException) as err:
            failure = TallyApiError("network_error", str(err) or type(err).__name__, 0, retryable=True)
        except TallyApiError as err:
            failure = err
        if not retry or not failure.retryable or attempt >= t.max_retries:
            raise failure
        time.sleep(retry_delay(attempt, failure.retry_after_ms, t.backoff) / 1000)
        attempt += 1


def _once(t: ApiTransport, method: str, url: str, data: Optional[bytes], headers: Mapping[str, str]) -> Dict[str, Any]:
    scheme, host, port = t.target
    conn_class = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    conn = conn_class(host, port, timeout=t.timeout_ms / 1000)
    try:
        conn.request(method, url, body=data, headers=dict(headers))
        res = conn.getresponse()
        text = res.read().decode("utf-8", errors="replace")
        retry_after = res.getheader("retry-after")
    finally:
        conn.close()
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if 200 <= res.status < 300:
        return answer if isinstance(answer, dict) else {}
    err = answer.get("error") if isinstance(answer, dict) and isinstance(answer.get("error"), dict) else {}
    details = err.get("details") if isinstance(err.get("details"), list) else []
    raise TallyApiError(str(err.get("code") or f"http_{res.status}"), str(err.get("message") or f"HTTP {res.status}"), res.status, details,
                        retryable=res.status == 429 or res.status >= 500, retry_after_ms=parse_retry_after(retry_after))


class ApiGroup:
    """A group of API calls (``tally.credits``, ``tally.spend_limits``) over one transport."""

    def __init__(self, transport: ApiTransport) -> None:
        self._t = transport

    def _call(self, method: str, path: str, **kw: Any) -> Dict[str, Any]:
        return call(self._t, method, path, **kw)


def fields(**kw: Any) -> Dict[str, Any]:
    """The fields that are set (None: left out)."""
    return {k: v for k, v in kw.items() if v is not None}


def money(v: Optional[Money]) -> Optional[str]:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (Decimal, int, str)):
        raise TypeError("an amount must be a Decimal, an int or a decimal str (a float is not exact)")
    return format(v, "f") if isinstance(v, Decimal) else str(v)


def iso_time(v: Union[str, datetime, None]) -> Optional[str]:
    if v is None or isinstance(v, str):
        return v
    if v.tzinfo is None:
        v = v.replace(tzinfo=timezone.utc)
    return v.isoformat()


def seg(v: str) -> str:
    return quote(v, safe="")
