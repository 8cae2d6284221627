"""Tally SDK for Python: send metering events (actions, outcomes) with batching, retries
and at-least-once delivery. Standard library only.

    from tally import Tally

    tally = Tally("http://localhost:8080", api_key=SDK_KEY, agent_key=AGENT_SECRET)
    tally.send_action("llm_call", metadata={"model": "gpt-4o", "input_tokens": 1200})
    tally.send_outcome("converted_lead", Decimal("1"))
"""

from .backoff import BackoffOptions, backoff_delay, parse_retry_after, retry_delay
from .buffer import BoundedBuffer
from .client import USER_AGENT, Tally, TallyStats, __version__
from .credits import Money, TallyCredits
from .spend_limits import TallySpendLimits
from .errors import TallyApiError, TallyBufferOverflowError, TallyDeliveryError, TallyError, TallyRejectedError, TallySpendLimitError
from .events import EventKind, OutcomeValue, PendingEvent

__all__ = [
    "Tally",
    "TallyStats",
    "PendingEvent",
    "EventKind",
    "OutcomeValue",
    "TallyError",
    "TallyRejectedError",
    "TallySpendLimitError",
    "TallyDeliveryError",
    "TallyBufferOverflowError",
    "TallyApiError",
    "TallyCredits",
    "TallySpendLimits",
    "Money",
    "BackoffOptions",
    "backoff_delay",
    "parse_retry_after",
    "retry_delay",
    "BoundedBuffer",
    "USER_AGENT",
    "__version__",
]
