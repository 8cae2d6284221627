"""Prepaid credits through the Family A API (docs/credits.md, Credits): ``tally.credits``.

The same calls as the TypeScript SDK's ``tally.credits`` (sdk/src/credits.ts). Answers are
the service's JSON as dicts; money is decimal text (``"100.00"``), never a float. Pass
amounts as ``Decimal``, ``int`` or decimal ``str``.
"""

from __future__ import annotations

import http.client
import json
import time
import uuid
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
class CreditsTransport:
    """How the credits calls reach the service (set up by ``Tally``)."""

    target: Tuple[str, str, Optional[int]]
    v1: str
    api_key: Optional[str]
    agent_key: Optional[str]
    user_agent: str
    timeout_ms: int
    max_retries: int
    backoff: BackoffOptions


class TallyCredits:
    """Prepaid credits: grants, balance, ledger entries, adjustments, the low-balance
    threshold and top-ups. Needs an API key that may read and write (``api_key``);
    :meth:`agent_balance` needs the agent secret (``agent_key``). An answer other than 2xx
    raises :class:`TallyApiError`. Reads and grants (sent with an Idempotency-Key, a random
    one when none is given) are retried like event batches; other changes are sent once."""

    def __init__(self, transport: CreditsTransport) -> None:
        self._t = transport

    def grant(
        self,
        account_id: str,
        currency: str,
        kind: str,
        amount: Money,
        *,
        idempotency_key: Optional[str] = None,
        price: Optional[Money] = None,
        priority: Optional[int] = None,
        effective_at: Union[str, datetime, None] = None,
        expires_at: Union[str, datetime, None] = None,
        scope: Optional[Mapping[str, Any]] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        usable: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Grants credits (``kind`` ``"paid"`` or ``"free"``); a retry with the same
        ``idempotency_key`` grants once (the first grant is answered)."""
        body = _fields(account_id=account_id, currency=currency, kind=kind, amount=_money(amount), price=_money(price), priority=priority,
                       effective_at=_time(effective_at), expires_at=_time(expires_at), scope=scope, metadata=metadata, usable=usable)
        key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        return self._call("POST", "/credits/grants", body=body, headers={"idempotency-key": key}, retry=True)

    def list_grants(self, *, account_id: Optional[str] = None, currency: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> Dict[str, Any]:
        """``{"grants": [...], "total", "limit", "offset"}``."""
        return self._call("GET", "/credits/grants", query=_fields(account_id=account_id, currency=currency, limit=limit, offset=offset), retry=True)

    def get_grant(self, grant_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/credits/grants/{_seg(grant_id)}", retry=True)

    def void_grant(self, grant_id: str, reason: Optional[str] = None) -> Dict[str, Any]:
        """Voids what is left of a grant (a ``void`` entry); a grant already void: 409."""
        return self._call("POST", f"/credits/grants/{_seg(grant_id)}/void", body=_fields(reason=reason), retry=False)

    def balance(self, account_id: str, *, at: Union[str, datetime, None] = None) -> Dict[str, Any]:
        """The account's balance per currency: live (pending usage counted) now, or the ledger's at ``at``."""
        return self._call("GET", f"/accounts/{_seg(account_id)}/credits/balance", query=_fields(at=_time(at)), retry=True)

    def list_entries(
        self,
        *,
        account_id: Optional[str] = None,
        grant_id: Optional[str] = None,
        invoice_id: Optional[str] = None,
        type: Optional[str] = None,
        from_: Union[str, datetime, None] = None,
        to: Union[str, datetime, None] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Ledger entries in the order written: ``{"entries": [...], "total", "limit", "offset"}``;
        ``from_``/``to`` filter on ``occurred_at``."""
        q = _fields(account_id=account_id, grant_id=grant_id, invoice_id=invoice_id, type=type, to=_time(to), limit=limit, offset=offset)
        q.update(_fields(**{"from": _time(from_)}))
        return self._call("GET", "/credits/entries", query=q, retry=True)

    def adjust(self, grant_id: str, amount: Money, reason: str) -> Dict[str, Any]:
        """A manual adjustment (+/-) of a grant with its reason: an ``adjustment`` entry."""
        return self._call("POST", "/credits/adjustments", body={"grant_id": grant_id, "amount": _money(amount), "reason": reason}, retry=False)

    def refund(self, grant_id: str, amount: Money, reason: str) -> Dict[str, Any]:
        """Pays back paid account credit: a ``refund`` entry (-)."""
        return self._call("POST", "/credits/refunds", body={"grant_id": grant_id, "amount": _money(amount), "reason": reason}, retry=False)

    def set_low_balance_threshold(self, account_id: str, currency: str, threshold: Optional[Money]) -> Dict[str, Any]:
        """Sets (or, with None, removes) the account's low-balance threshold in a currency (``credits.balance_low``)."""
        body = {"currency": currency, "low_balance_threshold": _money(threshold)}
        return self._call("PUT", f"/accounts/{_seg(account_id)}/credits/settings", body=body, retry=False)

    def settings(self, account_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/accounts/{_seg(account_id)}/credits/settings", retry=True)

    def create_topup(
        self,
        account_id: str,
        currency: str,
        type: str,
        *,
        kind: Optional[str] = None,
        amount: Optional[Money] = None,
        price: Optional[Money] = None,
        target_balance: Optional[Money] = None,
        threshold: Optional[Money] = None,
        interval: Optional[str] = None,
        starts_at: Union[str, datetime, None] = None,
        priority: Optional[int] = None,
        usable: Optional[str] = None,
        expires_after_days: Optional[int] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """A top-up rule: ``type`` ``"recurring"`` (``interval``, ``amount``) or ``"threshold"``
        (``threshold``, and ``amount`` or ``target_balance``)."""
        body = _fields(account_id=account_id, currency=currency, type=type, kind=kind, amount=_money(amount), price=_money(price),
                       target_balance=_money(target_balance), threshold=_money(threshold), interval=interval, starts_at=_time(starts_at),
                       priority=priority, usable=usable, expires_after_days=expires_after_days, metadata=metadata)
        return self._call("POST", "/credits/topups", body=body, retry=False)

    def list_topups(self, *, account_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> Dict[str, Any]:
        return self._call("GET", "/credits/topups", query=_fields(account_id=account_id, limit=limit, offset=offset), retry=True)

    def get_topup(self, topup_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/credits/topups/{_seg(topup_id)}", retry=True)

    def cancel_topup(self, topup_id: str) -> Dict[str, Any]:
        """Stops a top-up rule (what it granted stays)."""
        return self._call("POST", f"/credits/topups/{_seg(topup_id)}/disable", retry=False)

    def agent_balance(self) -> Dict[str, Any]:
        """The calling agent's account's available credit per currency (the client's ``agent_key``)."""
        return self._call("GET", "/agents/me/credit-balance", as_agent=True, retry=True)

    # -- transport -----------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        as_agent: bool = False,
        retry: bool,
    ) -> Dict[str, Any]:
        secret = self._t.agent_key if as_agent else self._t.api_key
        if not secret:
            raise TallyApiError("missing_credentials", "this call needs the agent secret (`agent_key`)" if as_agent else "this call needs an API key (`api_key`)", 0)
        h = {"user-agent": self._t.user_agent, **(headers or {})}
        if as_agent:
            h["x-agent-secret"] = secret
        else:
            h["authorization"] = f"Bearer {secret}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            h["content-type"] = "application/json"
        url = self._t.v1 + path + ("?" + urlencode(query) if query else "")
        attempt = 0
        while True:
            try:
                return self._once(method, url, data, h)
            except (OSError, http.client.HTTPException) as err:
                failure = TallyApiError("network_error", str(err) or type(err).__name__, 0, retryable=True)
            except TallyApiError as err:
                failure = err
            if not retry or not failure.retryable or attempt >= self._t.max_retries:
                raise failure
            time.sleep(retry_delay(attempt, failure.retry_after_ms, self._t.backoff) / 1000)
            attempt += 1

    def _once(self, method: str, url: str, data: Optional[bytes], headers: Mapping[str, str]) -> Dict[str, Any]:
        scheme, host, port = self._t.target
        conn_class = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        conn = conn_class(host, port, timeout=self._t.timeout_ms / 1000)
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


def _fields(**fields: Any) -> Dict[str, Any]:
    """The fields that are set (None: left out)."""
    return {k: v for k, v in fields.items() if v is not None}


def _money(v: Optional[Money]) -> Optional[str]:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (Decimal, int, str)):
        raise TypeError("an amount must be a Decimal, an int or a decimal str (a float is not exact)")
    return format(v, "f") if isinstance(v, Decimal) else str(v)


def _time(v: Union[str, datetime, None]) -> Optional[str]:
    if v is None or isinstance(v, str):
        return v
    if v.tzinfo is None:
        v = v.replace(tzinfo=timezone.utc)
    return v.isoformat()


def _seg(v: str) -> str:
    return quote(v, safe="")
