"""How many requests an API backend keeps in flight: AIMD on the server's rate limits.

A fixed concurrency is either too low (a server that could take more waits on us) or too high
(the server answers 429 and every refused request costs a round trip and a retry, and may run
out of retries). So the limit adapts, the way TCP's congestion window does:

- additive increase: one more slot after each window of `limit` successes, while the limit is
  in use (at least half of it in flight) and the server's last Retry-After has passed; the step
  back up to the limit that was last refused waits `plateau` windows (the server's capacity
  is most likely just below it: probing it every window would be refused every other window);
- multiplicative decrease: on a 429 (or any refusal that carries Retry-After) the limit is
  multiplied by `backoff` (0.9: at least one slot less), at most once per window: refusals of
  requests sent before the last decrease were answered by it already, as the requests of one
  burst all fail together;
- Retry-After is honoured: the refused request waits at least that long (`retry.py`), the
  limit does not grow again before it has passed, and when the limit is already at its floor
  nothing new is sent until then (the server refuses even one request at a time: a quota
  window, not a concurrency limit).

The limit stays within [min_limit, max_limit]; it starts at the top (a server that never says
429 is used exactly as with a fixed concurrency). `AIMDPolicy` is the policy alone, pure:
outcomes and times in, limits out. `AdaptiveSlots` applies it to asyncio tasks.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from dataclasses import dataclass, field

_TRACE_LIMIT = 10_000  # limit changes kept for inspection; a summary covers all of them


@dataclass
class AIMDPolicy:
    """The limit after each outcome. Times are seconds on any monotonic clock.

    The first five fields are the settings; the others are state, not constructor arguments.
    """

    max_limit: int
    min_limit: int = 1
    backoff: float = 0.9
    plateau: int = 4  # windows of successes before the last refused limit is tried again
    limit: int = 0  # 0: start at max_limit
    # bumped by every decrease; a request carries the epoch it was sent in
    epoch: int = field(default=0, init=False)
    # no increase before the server's Retry-After has passed
    hold_until: float = field(default=-math.inf, init=False)
    # no new request before this (Retry-After at the floor)
    pause_until: float = field(default=-math.inf, init=False)
    lowest: int = field(default=0, init=False)
    highest: int = field(default=0, init=False)
    decreases: int = field(default=0, init=False)
    increases: int = field(default=0, init=False)
    trace: list[tuple[float, int]] = field(default_factory=list, init=False)
    ceiling: int | None = field(default=None, init=False)  # the limit at the last decrease
    _credit: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        if not 1 <= self.min_limit <= self.max_limit:
            raise ValueError(
                f"need 1 <= min_limit <= max_limit, got {self.min_limit}, {self.max_limit}"
            )
        if not 0.0 < self.backoff < 1.0:
            raise ValueError(f"backoff must be in (0, 1), got {self.backoff}")
        if self.plateau < 1:
            raise ValueError(f"plateau must be at least 1, got {self.plateau}")
        self.limit = self.limit or self.max_limit
        self.limit = min(max(self.limit, self.min_limit), self.max_limit)
        self.lowest = self.highest = self.limit

    def succeeded(self, in_flight: int, now: float) -> int:
        """A request was answered while `in_flight` (itself included) were out; the new limit."""
        if now < self.hold_until or self.limit >= self.max_limit or 2 * in_flight < self.limit:
            return self.limit
        self._credit += 1.0 / self.limit
        windows = self.plateau if self.limit + 1 == self.ceiling else 1
        if self._credit >= windows - 1e-9:
            self._credit = 0.0
            self._set(self.limit + 1, now)
            self.increases += 1
        return self.limit

    def refused(self, epoch: int, now: float, retry_after: float | None = None) -> int:
        """A request sent in `epoch` was refused (429, or a Retry-After); the new limit."""
        wait = max(0.0, retry_after or 0.0)
        self.hold_until = max(self.hold_until, now + wait)
        self._credit = 0.0
        if epoch < self.epoch:  # sent before the last decrease, which already answered it
            return self.limit
        if self.limit <= self.min_limit:
            self.pause_until = max(self.pause_until, now + wait)
        else:
            self.ceiling = self.limit
            self._set(max(self.min_limit, math.floor(self.limit * self.backoff)), now)
            self.decreases += 1
        self.epoch += 1
        return self.limit

    def may_start(self, in_flight: int, now: float) -> bool:
        return in_flight < self.limit and now >= self.pause_until

    def summary(self) -> dict[str, int]:
        """The lowest, highest and current limit, and how often it moved."""
        return {
            "concurrency_min": self.lowest,
            "concurrency_max": self.highest,
            "concurrency_final": self.limit,
            "concurrency_decreases": self.decreases,
            "concurrency_increases": self.increases,
        }

    def _set(self, limit: int, now: float) -> None:
        self.limit = limit
        self.lowest = min(self.lowest, limit)
        self.highest = max(self.highest, limit)
        if len(self.trace) < _TRACE_LIMIT:
            self.trace.append((now, limit))


@dataclass
class Slot:
    """One request's place in flight: the epoch it was sent in, and how it ended."""

    epoch: int
    outcome: str | None = None  # "ok", "refused" or None (neither: no signal)
    retry_after: float | None = None

    def answered(self) -> None:
        self.outcome = "ok"

    def refused(self, retry_after: float | None) -> None:
        self.outcome, self.retry_after = "refused", retry_after


class AdaptiveSlots:
    """A semaphore whose size follows an `AIMDPolicy`; use on one event loop only.

    Retries are served before first attempts (they have waited longest, and the answers after
    them wait on them to be handed over in order), each kind first come, first served.
    `fixed=True` keeps the policy's limit where it is (for comparisons with a fixed concurrency).
    """

    def __init__(self, policy: AIMDPolicy, *, fixed: bool = False) -> None:
        self.policy = policy
        self.fixed = fixed
        self.in_flight = 0
        self._waiters: deque[asyncio.Future[int]] = deque()
        self._retries: deque[asyncio.Future[int]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def slot(self, *, retry: bool = False) -> _Holding:
        """`async with` it to hold one slot; report the outcome on the `Slot` it gives before
        leaving the block."""
        return _Holding(self, retry)

    async def acquire(self, retry: bool = False) -> int:
        """Wait for a slot (a retry's before any first attempt's) and take it: the policy's
        epoch it starts in. Pair each with `release`; `slot()` does both."""
        queue = self._retries if retry else self._waiters
        now = time.monotonic()
        if not self._retries and not self._waiters and self.policy.may_start(self.in_flight, now):
            return self._start()
        waiter: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        queue.append(waiter)
        self._wake()
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # woken, then cancelled: give it back
                self.in_flight -= 1
                self._wake()
            elif waiter in queue:  # not yet skipped by `_wake`
                queue.remove(waiter)
            raise

    def _start(self) -> int:
        self.in_flight += 1
        return self.policy.epoch

    def release(self, held: Slot) -> None:
        """Give back a slot taken by `acquire`, telling the policy how its request ended."""
        now = time.monotonic()
        if not self.fixed and held.outcome == "ok":
            self.policy.succeeded(self.in_flight, now)
        elif not self.fixed and held.outcome == "refused":
            self.policy.refused(held.epoch, now, held.retry_after)
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        """Start as many waiters as the limit allows now; come back when a pause ends."""
        now = time.monotonic()
        while (self._retries or self._waiters) and self.policy.may_start(self.in_flight, now):
            waiter = (self._retries or self._waiters).popleft()
            if not waiter.done():
                waiter.set_result(self._start())
        waiting = self._retries or self._waiters
        if waiting and now < self.policy.pause_until and self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.policy.pause_until - now, self._pause_over)

    def _pause_over(self) -> None:
        self._timer = None
        self._wake()


class _Holding:
    """One `async with slots.slot()`, made by `AdaptiveSlots.slot` and using only its public
    `acquire` and `release`: a plain class rather than `asynccontextmanager`, whose generator
    and wrapper were a third of the slot's cost (one request at a time, every call runs with
    caches gone cold during the server's wait)."""

    def __init__(self, slots: AdaptiveSlots, retry: bool) -> None:
        self._slots = slots
        self._retry = retry
        self._held: Slot | None = None

    async def __aenter__(self) -> Slot:
        self._held = Slot(await self._slots.acquire(self._retry))
        return self._held

    async def __aexit__(self, *exc: object) -> None:
        if self._held is not None:
            self._slots.release(self._held)
