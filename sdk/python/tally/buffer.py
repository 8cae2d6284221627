"""A bounded FIFO of pending events (the same policy as sdk/src/buffer.ts)."""

from __future__ import annotations

from collections import deque
from typing import Deque, Generic, Iterable, List, TypeVar

T = TypeVar("T")


class BoundedBuffer(Generic[T]):
    """When full, :meth:`push` drops the oldest events to make room and returns them (the
    caller reports them): new events are what an agent is doing now; a buffer that blocked
    or raised would push the outage into the agent's own work.

    Not thread-safe by itself: the client holds its lock around every call.
    """

    def __init__(self, capacity: int) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        self.capacity = capacity
        self._items: Deque[T] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def first(self) -> T:
        """The oldest item (IndexError when empty)."""
        return self._items[0]

    def push(self, item: T) -> List[T]:
        """Appends; returns the items dropped (oldest first) to stay within capacity."""
        self._items.append(item)
        return self._trim()

    def unshift(self, items: Iterable[T]) -> List[T]:
        """Puts items back at the front (a batch to retry later, order kept); returns the dropped."""
        self._items.extendleft(reversed(list(items)))
        return self._trim()

    def take(self, n: int) -> List[T]:
        """Removes and returns up to ``n`` of the oldest items."""
        return [self._items.popleft() for _ in range(min(n, len(self._items)))]

    def _trim(self) -> List[T]:
        over = len(self._items) - self.capacity
        return [self._items.popleft() for _ in range(over)] if over > 0 else []
