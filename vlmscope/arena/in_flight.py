"""Votes being saved: a count the board waits on, so a Refresh never misses a vote just cast.

A vote is acknowledged only once the store has committed it, and the board is rated from the
store; a Refresh pressed while a vote is still being written would rate the votes before it
(and say "0 votes so far" after the first). The vote holds an `InFlight` while it stores; the
board first waits (briefly) for the votes in flight to land, and says how many did not.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class InFlight:
    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @contextmanager
    def holding(self) -> Iterator[None]:
        """Count one piece of work in flight while the block runs."""
        with self._changed:
            self._count += 1
        try:
            yield
        finally:
            with self._changed:
                self._count -= 1
                self._changed.notify_all()

    def settle(self, timeout_s: float) -> int:
        """Wait up to `timeout_s` for the work in flight to finish; how many are still going."""
        with self._changed:
            self._changed.wait_for(lambda: self._count == 0, timeout=timeout_s)
            return self._count
