"""The Tally client: buffered, batched, retried delivery of metering events.

The same behaviour as the TypeScript SDK (sdk/src/client.ts), with threads in place of
Node's event loop: ``send_*`` only buffers (thread-safe, never blocks on the network);
sender threads post batches.
"""

from __future__ import annotations

import atexit
import http.client
import itertools
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple, Union
from urllib.parse import urlsplit

from .backoff import BackoffOptions, parse_retry_after, retry_delay
from .buffer import BoundedBuffer
from .api import ApiTransport
from .credits import TallyCredits
from .spend_limits import TallySpendLimits
from .errors import TallyBufferOverflowError, TallyDeliveryError, TallyError, TallyRejectedError, TallySpendLimitError
from .events import EventKind, OutcomeValue, PendingEvent, encode_event, iso_timestamp, value_text

__version__ = "0.1.0"
USER_AGENT = f"tally-python/{__version__}"
_log = logging.getLogger("tally")


@dataclass(frozen=True)
class TallyStats:
    """Counters of one client."""

    delivered: int
    """Events the service acknowledged."""
    rejected: int
    dropped: int
    retries: int
    """Requests retried (each retry counts)."""
    buffered: int
    """Events buffered now."""


@dataclass(frozen=True)
class _Options:
    api_key: Optional[str]
    agent_key: Optional[str]
    base_url: str
    buffer_size: int
    flush_interval_ms: int
    timeout_ms: int
    max_retries: int
    retry_base_ms: int
    retry_max_ms: int
    max_buffered_events: int
    max_concurrent_requests: int
    flush_on_exit: bool
    on_error: Callable[[TallyError], None]


@dataclass
class _Answer:
    status: int
    text: str
    retry_after: Optional[str]


def _warn(err: TallyError) -> None:
    _log.warning("tally: %s: %s", err.code, err.message)


class Tally:
    """Sends metering events to Tally with at-least-once delivery: events are buffered and
    sent in batches; each event gets its id and timestamp when it is given to the client,
    and keeps them across retries, so the service counts a retried event once.

    Failure handling: network errors, timeouts, 5xx and 429 are retried (exponential backoff
    with jitter, or the server's Retry-After) up to ``max_retries`` times; then the batch
    goes back to the buffer and is tried again at the next flush. Other 4xx are not retried:
    a batch answer's per-event rejections reach ``on_error`` as :class:`TallyRejectedError`
    (the good events of the batch are stored), a whole-request error (e.g. 401) as
    :class:`TallyDeliveryError`. The buffer is bounded (``max_buffered_events``): when the
    service stays unreachable and it fills, the oldest events are dropped and reported.

    ``on_error`` is called on a sender thread (or the thread calling ``send_*``/``close``);
    it must not call ``flush()`` or ``close()``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        agent_key: Optional[str] = None,
        buffer_size: int = 100,
        flush_interval_ms: int = 5000,
        timeout_ms: int = 30_000,
        max_retries: int = 3,
        retry_base_ms: int = 500,
        retry_max_ms: int = 30_000,
        max_buffered_events: int = 10_000,
        max_concurrent_requests: int = 1,
        flush_on_exit: bool = True,
        on_error: Optional[Callable[[TallyError], None]] = None,
    ) -> None:
        """
        :param base_url: service address, e.g. ``http://localhost:8080`` or ``https://tally.example.com/v1``.
        :param api_key: SDK key (``sk_test_...``/``sk_live_...``), sent as ``Authorization: Bearer``.
            Optional when ``agent_key`` is given.
        :param agent_key: the agent instance's secret (or id), sent as ``agent_key`` on every event
            that has none. Without ``api_key`` it authenticates the client (``X-Agent-Secret``).
        :param buffer_size: events per request; a full buffer of this many is sent at once. Default 100.
        :param flush_interval_ms: buffered events are sent at least this often. Default 5000.
        :param timeout_ms: per request (connect, and each read or write). Default 30000.
        :param max_retries: retries of one request after the first attempt (network errors, 5xx, 429). Default 3.
        :param retry_base_ms: first retry delay before jitter; doubles per retry. Default 500.
        :param retry_max_ms: largest delay between retries, Retry-After included. Default 30000.
        :param max_buffered_events: most events held while the service is unreachable (buffered
            plus waiting for the next attempt). When full, the oldest events are dropped and
            reported to ``on_error`` as a :class:`TallyBufferOverflowError`. Default 10000.
        :param max_concurrent_requests: requests in flight at once (sender threads). Default 1.
        :param flush_on_exit: flush and close at interpreter exit (``atexit``). Default True.
        :param on_error: events that could not be delivered: rejected by the service, dropped,
            or undeliverable. Default: a warning on the ``tally`` logger.
        """
        self._o = _resolve(
            base_url=base_url, api_key=api_key, agent_key=agent_key, buffer_size=buffer_size,
            flush_interval_ms=flush_interval_ms, timeout_ms=timeout_ms, max_retries=max_retries,
            retry_base_ms=retry_base_ms, retry_max_ms=retry_max_ms, max_buffered_events=max_buffered_events,
            max_concurrent_requests=max_concurrent_requests, flush_on_exit=flush_on_exit, on_error=on_error,
        )
        self._target, self._paths = _endpoints(self._o.base_url)
        self._headers = {"content-type": "application/json", "user-agent": USER_AGENT}
        if self._o.api_key:
            self._headers["authorization"] = f"Bearer {self._o.api_key}"
        else:
            self._headers["x-agent-secret"] = self._o.agent_key or ""
        self._backoff = BackoffOptions(base_ms=self._o.retry_base_ms, max_ms=self._o.retry_max_ms)
        api = ApiTransport(
            target=self._target, v1=self._paths["action"].rsplit("/", 1)[0], api_key=self._o.api_key, agent_key=self._o.agent_key,
            user_agent=USER_AGENT, timeout_ms=self._o.timeout_ms, max_retries=self._o.max_retries, backoff=self._backoff,
        )
        #: Prepaid credits (grants, balance, ledger, top-ups): see :class:`TallyCredits`.
        self.credits = TallyCredits(api)
        #: Spend limits (create, change, states, alerts) with an API key: see :class:`TallySpendLimits`.
        #: An agent reads its own with :meth:`limits`.
        self.spend_limits = TallySpendLimits(api)

        self._cond = threading.Condition(threading.Lock())
        # Everything below is guarded by self._cond.
        self._buffer: BoundedBuffer[PendingEvent] = BoundedBuffer(self._o.max_buffered_events)
        self._seq = itertools.count(1)
        self._last_seq = 0
        # First event sequence number of each batch being sent.
        self._inflight: Dict[int, int] = {}
        self._batch_ids = itertools.count(1)
        # Events up to this sequence number are sent even in a partial batch (a flush is on).
        self._drain_to = 0
        # TRICKY: once a batch went back to the buffer (the service is unreachable), nothing
        # more is taken until the next flush; otherwise a flush during an outage would never
        # end. ``_requeues`` counts such returns so a waiting flush() sees one happened.
        self._paused = False
        self._requeues = 0
        self._next_tick = time.monotonic() + self._o.flush_interval_ms / 1000
        # No request before this monotonic time (a 429/503 Retry-After applies to the whole client).
        self._not_before = 0.0
        self._stats = {"delivered": 0, "rejected": 0, "dropped": 0, "retries": 0}
        self._closing = False
        self._stopping = False

        self._close_lock = threading.Lock()
        self._closed = False
        self._workers = [
            threading.Thread(target=self._work, name=f"tally-sender-{i + 1}", daemon=True)
            for i in range(self._o.max_concurrent_requests)
        ]
        self._worker_ids: Set[int] = set()
        for t in self._workers:
            t.start()
            assert t.ident is not None
            self._worker_ids.add(t.ident)
        if self._o.flush_on_exit:
            atexit.register(self._at_exit)

    def __enter__(self) -> "Tally":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the public API ------------------------------------------------------------------

    def send_action(
        self,
        action_type: str,
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        user_id: Optional[str] = None,
        anonymous_id: Optional[str] = None,
        agent_key: Optional[str] = None,
        timestamp: Union[str, datetime, None] = None,
        event_id: Optional[str] = None,
    ) -> str:
        """Buffers an action; returns its event id.

        :param timestamp: defaults to the time of the call; a naive datetime is UTC.
        :param event_id: defaults to a random UUID. Re-sending an id counts the event once.
        """
        if not isinstance(action_type, str):
            raise TypeError("send_action: `action_type` must be a string")
        fields = _optional(action_type=action_type, metadata=metadata, user_id=user_id, anonymous_id=anonymous_id)
        return self._enqueue("action", fields, None, timestamp, event_id, agent_key)

    def send_outcome(
        self,
        outcome_type: str,
        value: OutcomeValue,
        *,
        metadata: Optional[Mapping[str, Any]] = None,
        user_id: Optional[str] = None,
        anonymous_id: Optional[str] = None,
        agent_key: Optional[str] = None,
        timestamp: Union[str, datetime, None] = None,
        event_id: Optional[str] = None,
    ) -> str:
        """Buffers an outcome; returns its event id.

        :param value: a ``Decimal``, ``int`` or decimal ``str`` (sent with every digit), or a
            ``float`` (sent as its shortest repr). The service takes 0 to 10^18 with at most
            9 decimals.
        """
        if not isinstance(outcome_type, str):
            raise TypeError("send_outcome: `outcome_type` must be a string")
        text = value_text(value)
        fields = _optional(outcome_type=outcome_type, metadata=metadata, user_id=user_id, anonymous_id=anonymous_id)
        return self._enqueue("outcome", fields, text, timestamp, event_id, agent_key)

    @property
    def stats(self) -> TallyStats:
        with self._cond:
            return TallyStats(buffered=len(self._buffer), **self._stats)

    def flush(self) -> None:
        """Sends everything buffered. Returns when each of those events is delivered,
        reported, or, if the service stayed unreachable through every retry, back in the
        buffer."""
        self._refuse_on_sender_thread("flush")
        with self._cond:
            target = self._last_seq
            requeues = self._requeues
            self._drain(target)
            while not self._flushed(target, requeues):
                self._cond.wait()

    def close(self) -> None:
        """Flushes, stops the sender threads and the exit hook. Events still undeliverable
        after that are reported to ``on_error`` as a :class:`TallyDeliveryError` with code
        ``undelivered``. Idempotent; ``send_*`` raises afterwards."""
        self._refuse_on_sender_thread("close")
        with self._close_lock:
            if self._closed:
                return
            with self._cond:
                self._closing = True
            atexit.unregister(self._at_exit)
            self.flush()
            with self._cond:
                left = self._buffer.take(len(self._buffer))
                self._stopping = True
                self._cond.notify_all()
            for t in self._workers:
                t.join()
            if left:
                self._report(TallyDeliveryError("undelivered", f"{len(left)} events could not be delivered before close", left, None, True))
            self._closed = True

    # -- buffering -----------------------------------------------------------------------

    def _enqueue(
        self,
        kind: EventKind,
        fields: Dict[str, Any],
        value: Optional[str],
        timestamp: Union[str, datetime, None],
        event_id: Optional[str],
        agent_key: Optional[str],
    ) -> str:
        for name, v in (("agent_key", agent_key), ("event_id", event_id)):
            if v is not None and not isinstance(v, str):
                raise TypeError(f"`{name}` must be a string")
        key = agent_key if agent_key is not None else self._o.agent_key
        if key is not None:
            fields["agent_key"] = key
        fields["id"] = event_id if event_id is not None else str(uuid.uuid4())
        fields["timestamp"] = iso_timestamp(timestamp)
        text = encode_event(fields, value)  # raises here, in the caller, for unserializable metadata
        body = dict(fields, value=Decimal(value)) if value is not None else fields
        with self._cond:
            if self._closing:
                raise RuntimeError("Tally client is closed")
            self._last_seq = next(self._seq)
            event = PendingEvent(kind=kind, id=fields["id"], timestamp=fields["timestamp"], body=body, json=text, seq=self._last_seq)
            dropped = self._buffer.push(event)
            self._stats["dropped"] += len(dropped)
            if len(self._buffer) >= self._o.buffer_size:
                self._cond.notify_all()
        if dropped:
            self._report(TallyBufferOverflowError(dropped))
        return event.id

    def _drain(self, target: int) -> None:
        """A flush: events up to ``target`` go out even in partial batches; unpauses. Under the lock."""
        self._paused = False
        self._drain_to = max(self._drain_to, target)
        self._cond.notify_all()

    def _flushed(self, target: int, requeues: int) -> bool:
        """Whether a flush of the events up to ``target`` is over. Under the lock."""
        if any(first <= target for first in self._inflight.values()):
            return False
        if self._requeues != requeues:
            return True
        return len(self._buffer) == 0 or self._buffer.first().seq > target

    def _next_batch(self) -> Optional[Tuple[int, List[PendingEvent]]]:
        """Waits for a batch to send: a full one, a partial one during a flush, or None when stopping."""
        with self._cond:
            while not self._stopping:
                now = time.monotonic()
                if now >= self._next_tick:
                    self._next_tick = now + self._o.flush_interval_ms / 1000
                    self._drain(self._last_seq)
                ready = len(self._buffer) >= self._o.buffer_size or (len(self._buffer) > 0 and self._buffer.first().seq <= self._drain_to)
                if ready and not self._paused:
                    batch = self._buffer.take(self._o.buffer_size)
                    batch_id = next(self._batch_ids)
                    self._inflight[batch_id] = batch[0].seq
                    return batch_id, batch
                self._cond.wait(max(0.0, self._next_tick - now))
            return None

    def _work(self) -> None:
        while True:
            job = self._next_batch()
            if job is None:
                return
            batch_id, batch = job
            back: List[PendingEvent] = []
            try:
                back = self._deliver(batch)
            except Exception as err:  # a bug; never lose the events or the thread
                _log.exception("tally: sending a batch failed: %s", err)
                back = batch
            finally:
                self._settle_batch(batch_id, back)

    def _settle_batch(self, batch_id: int, back: List[PendingEvent]) -> None:
        dropped: List[PendingEvent] = []
        with self._cond:
            del self._inflight[batch_id]
            if back:
                self._paused = True
                self._requeues += 1
                dropped = self._buffer.unshift(back)
                self._stats["dropped"] += len(dropped)
            self._cond.notify_all()
        if dropped:
            self._report(TallyBufferOverflowError(dropped))

    # -- delivery ------------------------------------------------------------------------

    def _deliver(self, batch: List[PendingEvent]) -> List[PendingEvent]:
        """Sends a batch, one request per kind; returns the events to try again later."""
        back: List[PendingEvent] = []
        for kind in ("action", "outcome"):
            events = [e for e in batch if e.kind == kind]
            if events:
                back.extend(self._send(kind, events))
        return back

    def _send(self, kind: str, events: List[PendingEvent]) -> List[PendingEvent]:
        """One batch of one kind, with retries; returns the events to try again later."""
        body = ("[" + ",".join(e.json for e in events) + "]").encode("utf-8")
        attempt = 0
        while True:
            with self._cond:
                wait = self._not_before - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            retry_after_ms: Optional[int] = None
            try:
                res = self._post(self._paths[kind], body)
            except (OSError, http.client.HTTPException):
                res = None  # network error or timeout: retried
            if res is not None:
                answer = _parse_json(res.text)
                results = answer.get("results") if isinstance(answer, dict) and isinstance(answer.get("results"), list) else None
                if res.status in (200, 207) or (400 <= res.status < 500 and res.status != 429 and results is not None):
                    self._settle(events, results, res.status)
                    return []
                if res.status == 413 and len(events) > 1:
                    mid = len(events) // 2
                    return self._send(kind, events[:mid]) + self._send(kind, events[mid:])
                if res.status != 429 and res.status < 500:
                    err = answer.get("error") if isinstance(answer, dict) and isinstance(answer.get("error"), dict) else {}
                    with self._cond:
                        self._stats["rejected"] += len(events)
                    self._report(TallyDeliveryError(str(err.get("code") or f"http_{res.status}"), str(err.get("message") or f"HTTP {res.status}"), events, res.status, False))
                    return []
                retry_after_ms = parse_retry_after(res.retry_after)
                if retry_after_ms is not None:
                    with self._cond:
                        until = time.monotonic() + min(retry_after_ms, self._o.retry_max_ms) / 1000
                        self._not_before = max(self._not_before, until)
            if attempt >= self._o.max_retries:
                return events
            with self._cond:
                self._stats["retries"] += 1
            time.sleep(retry_delay(attempt, retry_after_ms, self._backoff) / 1000)
            attempt += 1

    def _settle(self, events: List[PendingEvent], results: Optional[List[Any]], status: int) -> None:
        """A batch answer: count the processed, report the rejected with their events."""
        if results is None:
            with self._cond:
                self._stats["delivered"] += len(events)
            return
        rejected: List[TallyRejectedError] = []
        delivered = 0
        for r in results:
            index = r.get("index") if isinstance(r, dict) else None
            if not isinstance(index, int) or not 0 <= index < len(events):
                continue
            if r.get("status") == "rejected":
                err = r.get("error") if isinstance(r.get("error"), dict) else {}
                message = str(err.get("message") or "rejected by the service")
                if err.get("code") == "spend_limit_reached":
                    limit = err.get("limit") if isinstance(err.get("limit"), dict) else None
                    rejected.append(TallySpendLimitError(message, events[index], status, limit))
                else:
                    rejected.append(TallyRejectedError(str(err.get("code") or "rejected"), message, events[index], status))
            else:
                delivered += 1
        with self._cond:
            self._stats["delivered"] += delivered
            self._stats["rejected"] += len(rejected)
        for e in rejected:
            self._report(e)

    def limits(self) -> Dict[str, Any]:
        """The spend limits that apply to this client's agent instance (its own, its account's,
        its environment's): ``{"agent_instance_id", "account_id", "blocked", "limits": [...]}``,
        each limit with ``current``, ``remaining`` (decimal text) and ``blocked``
        (``GET /v1/agents/me/limits`` with the agent's secret). Needs ``agent_key`` (the
        secret). A well-behaved agent slows down as ``remaining`` shrinks, before it is blocked.
        Raises :class:`TallyDeliveryError` when the service answers an error."""
        if not self._o.agent_key:
            raise TypeError("limits(): `agent_key` (the agent instance secret) is required")
        scheme, host, port = self._target
        conn_class = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        conn = conn_class(host, port, timeout=self._o.timeout_ms / 1000)
        try:
            path = self._paths["action"][: -len("/actions")] + "/agents/me/limits"
            conn.request("GET", path, headers={"x-agent-secret": self._o.agent_key, "user-agent": USER_AGENT})
            res = conn.getresponse()
            answer = _parse_json(res.read().decode("utf-8", errors="replace"))
        finally:
            conn.close()
        if res.status != 200:
            err = answer.get("error") if isinstance(answer, dict) and isinstance(answer.get("error"), dict) else {}
            raise TallyDeliveryError(str(err.get("code") or f"http_{res.status}"), str(err.get("message") or f"HTTP {res.status}"), [], res.status, res.status == 429 or res.status >= 500)
        return answer if isinstance(answer, dict) else {}

    def _post(self, path: str, body: bytes) -> _Answer:
        scheme, host, port = self._target
        conn_class = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        conn = conn_class(host, port, timeout=self._o.timeout_ms / 1000)
        try:
            conn.request("POST", path, body=body, headers=self._headers)
            res = conn.getresponse()
            text = res.read().decode("utf-8", errors="replace")
            return _Answer(status=res.status, text=text, retry_after=res.getheader("retry-after"))
        finally:
            conn.close()

    # -- errors and exit -----------------------------------------------------------------

    def _report(self, err: TallyError) -> None:
        try:
            self._o.on_error(err)
        except Exception:  # a raising callback must not break delivery
            pass

    def _refuse_on_sender_thread(self, what: str) -> None:
        if threading.get_ident() in self._worker_ids:
            raise RuntimeError(f"Tally.{what}() cannot be called from on_error (a sender thread): it would wait for itself")

    def _at_exit(self) -> None:
        with self._cond:
            idle = len(self._buffer) == 0 and not self._inflight
        if not idle:
            self.close()


def _optional(**fields: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in fields.items():
        if v is None:
            continue
        if k == "metadata":
            if not isinstance(v, Mapping):
                raise TypeError("`metadata` must be a mapping")
            v = dict(v)
        elif not isinstance(v, str):
            raise TypeError(f"`{k}` must be a string")
        out[k] = v
    return out


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _endpoints(base_url: str) -> Tuple[Tuple[str, str, Optional[int]], Dict[str, str]]:
    u = urlsplit(base_url)
    base = u.path.rstrip("/")
    v1 = base if base.endswith("/v1") else base + "/v1"
    return (u.scheme, u.hostname or "", u.port), {"action": f"{v1}/actions", "outcome": f"{v1}/outcomes"}


def _resolve(**o: Any) -> _Options:
    problems: List[str] = []
    if not o["api_key"] and not o["agent_key"]:
        problems.append("`api_key` (SDK key) or `agent_key` (agent instance secret) is required")
    for name in ("api_key", "agent_key"):
        if o[name] is not None and not isinstance(o[name], str):
            problems.append(f"`{name}` must be a string")
    url = o["base_url"]
    try:
        u = urlsplit(url) if isinstance(url, str) else None
        if u is None or not u.hostname or u.scheme not in ("http", "https"):
            problems.append("`base_url` must be an absolute http(s) URL, e.g. http://localhost:8080")
        else:
            u.port  # raises ValueError for a bad port
    except ValueError:
        problems.append("`base_url` must be an absolute http(s) URL, e.g. http://localhost:8080")

    def integer(name: str, lo: int, hi: int = 2**53 - 1) -> None:
        v = o[name]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            problems.append(f"`{name}` must be an integer from {lo} to {hi}")

    integer("buffer_size", 1, 10_000)
    integer("flush_interval_ms", 1)
    integer("timeout_ms", 1)
    integer("max_retries", 0, 100)
    integer("retry_base_ms", 0)
    integer("retry_max_ms", 0)
    integer("max_buffered_events", 1)
    integer("max_concurrent_requests", 1, 64)
    if not isinstance(o["flush_on_exit"], bool):
        problems.append("`flush_on_exit` must be a bool")
    if o["on_error"] is not None and not callable(o["on_error"]):
        problems.append("`on_error` must be callable")
    if not problems and o["max_buffered_events"] < o["buffer_size"]:
        problems.append("`max_buffered_events` must be at least `buffer_size`")
    if problems:
        raise ValueError(f"Tally: invalid options: {'; '.join(problems)}")
    return _Options(**{**o, "on_error": o["on_error"] or _warn})
