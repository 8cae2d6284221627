"""Errors the client reports through ``on_error`` (the same classes as sdk/src/errors.ts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from .events import PendingEvent


class TallyError(Exception):
    """Base of every error the client reports through ``on_error``; branch on the class or ``code``."""

    def __init__(self, code: str, message: str, events: Sequence["PendingEvent"]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: The events concerned, with the id and timestamp they were sent with.
        self.events: Tuple["PendingEvent", ...] = tuple(events)


class TallyRejectedError(TallyError):
    """The service rejected one event of a batch (validation, unknown agent, ...); not retried."""

    def __init__(self, code: str, message: str, event: "PendingEvent", status: int) -> None:
        super().__init__(code, message, [event])
        self.event = event
        #: HTTP status of the batch answer (207, or the 4xx when no event was accepted).
        self.status = status


class TallySpendLimitError(TallyRejectedError):
    """The event was refused because a ``block`` spend limit of its agent, account or
    environment is reached (HTTP 402, code ``spend_limit_reached``). Not retried: sending it
    again is refused the same way until ``limit["resets_at"]`` or until the limit is raised."""

    def __init__(self, message: str, event: "PendingEvent", status: int, limit: Optional[Dict[str, Any]]) -> None:
        super().__init__("spend_limit_reached", message, event, status)
        #: Which limit (``id``), its ``value`` (decimal text), ``currency`` or ``unit``, and ``resets_at``; None if the answer did not say.
        self.limit = limit


class TallyDeliveryError(TallyError):
    """A whole request failed without a retry left: a non-retryable answer (401, 403, 415, ...;
    ``retryable`` False), or events still undeliverable at ``close()`` (``retryable`` True,
    code ``undelivered``)."""

    def __init__(self, code: str, message: str, events: Sequence["PendingEvent"], status: Optional[int], retryable: bool) -> None:
        super().__init__(code, message, events)
        self.status = status
        self.retryable = retryable


class TallyBufferOverflowError(TallyError):
    """The buffer was full (service unreachable for long): these oldest events were dropped."""

    def __init__(self, events: Sequence["PendingEvent"]) -> None:
        super().__init__("buffer_overflow", f"buffer full: dropped the {len(events)} oldest events", events)


class TallyApiError(TallyError):
    """A credits call (a control-plane call) was answered with an error, raised to the caller.

    ``status`` is the HTTP status (0: no answer: network error or timeout), ``code`` the
    service's error code (``validation_failed``, ``not_found``, ``conflict``,
    ``unauthorized``, ...; ``network_error``; ``missing_credentials``), ``details`` its
    per-field details. ``retryable``: a 429, a 5xx or no answer (after the client's own
    retries of calls that are safe to repeat).
    """

    def __init__(self, code: str, message: str, status: int, details: Sequence[object] = (), retryable: bool = False, retry_after_ms: Optional[int] = None) -> None:
        super().__init__(code, message, [])
        self.status = status
        self.details: Tuple[object, ...] = tuple(details)
        self.retryable = retryable
        #: The service's Retry-After, in ms (429, 503).
        self.retry_after_ms = retry_after_ms
