"""Events as sent: the body with its id and timestamp fixed at ``send_*`` time, and its
JSON text, in which an outcome's ``value`` is a JSON number written from its exact digits.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Dict, Literal, Optional, Union

EventKind = Literal["action", "outcome"]

#: What ``send_outcome`` takes as ``value``.
OutcomeValue = Union[Decimal, int, str, float]

# A decimal string as JSON writes numbers (a leading zero or "+" is not refused: Decimal reads them exactly).
_DECIMAL_TEXT = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
# Beyond this exponent a value is written in exponent notation rather than expanded to its
# digits (the service accepts at most 10^18 with 9 decimals and refuses larger ones).
_PLAIN_EXPONENT_LIMIT = 40


@dataclass(frozen=True)
class PendingEvent:
    """One event as sent. ``body`` holds the fields sent (``value`` as a ``Decimal``)."""

    kind: EventKind
    id: str
    timestamp: str
    body: Dict[str, Any]
    json: str = field(repr=False)
    #: Order of ``send_*`` calls in this client (used by ``flush()``).
    seq: int = field(repr=False, compare=False)


def value_text(value: OutcomeValue) -> str:
    """The JSON number text of an outcome value, exact: no float conversion of a
    ``Decimal``, ``int`` or ``str``; a ``float`` is written as its shortest repr
    (``0.1`` -> ``0.1``), like JavaScript's ``JSON.stringify``.

    Raises TypeError for other types (``bool`` included), ValueError for NaN, infinities
    and strings that are not decimal numbers.
    """
    if isinstance(value, bool):
        raise TypeError("send_outcome: `value` must be a Decimal, int, str or float, not bool")
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, int):
        return str(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"send_outcome: `value` must be finite, got {value!r}")
        d = Decimal(repr(value))
    elif isinstance(value, str):
        if not _DECIMAL_TEXT.fullmatch(value):
            raise ValueError(f'send_outcome: `value` must be a decimal number such as "123456789.123456789", got {value!r}')
        d = Decimal(value)
    else:
        raise TypeError(f"send_outcome: `value` must be a Decimal, int, str or float, got {type(value).__name__}")
    if not d.is_finite():
        raise ValueError(f"send_outcome: `value` must be finite, got {value!r}")
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    if abs(exponent) > _PLAIN_EXPONENT_LIMIT or d.adjusted() > _PLAIN_EXPONENT_LIMIT:
        return str(d)  # e.g. "1E+99": still a JSON number, exact; the service refuses it
    return format(d, "f")


def iso_timestamp(ts: Union[str, datetime, None]) -> str:
    """An ISO 8601 UTC timestamp with milliseconds; a naive datetime is taken as UTC (as
    the service reads a timestamp without a zone). Strings are sent as given."""
    if ts is None:
        ts = datetime.now(timezone.utc)
    if isinstance(ts, str):
        return ts
    if not isinstance(ts, datetime):
        raise TypeError(f"`timestamp` must be a datetime or an ISO 8601 string, got {type(ts).__name__}")
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    return ts.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encode_event(body: Dict[str, Any], value: Optional[str]) -> str:
    """The event's JSON text; ``value`` (JSON number text) is written in as is.

    Raises TypeError for metadata that JSON cannot hold, ValueError for NaN/infinite floats
    in it. A ``Decimal`` in metadata is written as a decimal string.
    """
    text = json.dumps(body, separators=(",", ":"), allow_nan=False, default=_json_default)
    if value is None:
        return text
    return '{"value":' + value + ("}" if text == "{}" else "," + text[1:])


def _json_default(o: Any) -> Any:
    if isinstance(o, Decimal):
        if not o.is_finite():
            raise ValueError(f"metadata: {o!r} is not a finite number")
        return str(o)
    raise TypeError(f"metadata: {type(o).__name__} is not JSON serializable")
