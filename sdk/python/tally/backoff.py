"""Retry delays: exponential backoff with jitter, and the server's ``Retry-After``.

The same rules as the TypeScript SDK (sdk/src/backoff.ts).
"""

from __future__ import annotations

import random as _random
import re
import time
from dataclasses import dataclass
from datetime import timezone
from email.utils import parsedate_to_datetime
from typing import Callable, Optional

_DELTA_SECONDS = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class BackoffOptions:
    """Options of the retry delay."""

    base_ms: int
    """Delay before the first retry, before jitter."""
    max_ms: int
    """Upper bound of any delay, Retry-After included."""


def backoff_delay(attempt: int, opts: BackoffOptions, random: Callable[[], float] = _random.random) -> int:
    """Delay in ms before retry number ``attempt`` (0 for the first retry).

    Exponential (``base_ms * 2**attempt``, capped at ``max_ms``) with "equal jitter": a
    uniformly random value in [half, full] of it, so retries of many clients spread out
    but still grow.
    """
    ceiling = min(opts.max_ms, opts.base_ms * 2 ** max(0, attempt))
    return _round_half_up(ceiling / 2 + random() * (ceiling / 2))


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """``Retry-After`` in ms: delta-seconds or an HTTP date; None when absent or unreadable.

    Never negative. ``now`` is a Unix time in seconds (default: the current time).
    """
    if value is None or value.strip() == "":
        return None
    v = value.strip()
    if _DELTA_SECONDS.fullmatch(v):
        return _round_half_up(float(v) * 1000)
    try:
        at = parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if at.tzinfo is None:  # "-0000": UTC
        at = at.replace(tzinfo=timezone.utc)
    current = time.time() if now is None else now
    return max(0, _round_half_up((at.timestamp() - current) * 1000))


def retry_delay(attempt: int, retry_after_ms: Optional[int], opts: BackoffOptions, random: Optional[Callable[[], float]] = None) -> int:
    """The delay in ms before the next attempt: the server's Retry-After when given, else backoff."""
    if retry_after_ms is not None:
        return min(opts.max_ms, retry_after_ms)
    return backoff_delay(attempt, opts) if random is None else backoff_delay(attempt, opts, random)


def _round_half_up(x: float) -> int:
    # Python's round() rounds half to even; Math.round (the TS SDK) rounds half up.
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)
