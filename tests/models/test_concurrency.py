"""The adaptive concurrency policy on its own: sequences of outcomes in, limits out."""

from __future__ import annotations

import asyncio
import math

import pytest

from vlmscope.models.concurrency import AdaptiveSlots, AIMDPolicy, Slot


def successes(policy: AIMDPolicy, count: int, now: float = 0.0) -> list[int]:
    """The limit after each of `count` answers, the limit's worth in flight each time."""
    return [policy.succeeded(policy.limit, now) for _ in range(count)]


def test_it_starts_at_the_top_and_never_passes_it() -> None:
    policy = AIMDPolicy(max_limit=8)
    assert policy.limit == 8
    assert successes(policy, 100) == [8] * 100
    assert policy.summary() == {
        "concurrency_min": 8, "concurrency_max": 8, "concurrency_final": 8,
        "concurrency_decreases": 0, "concurrency_increases": 0,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("limit", "after"), [(64, 57), (20, 18), (10, 9), (9, 8), (5, 4), (2, 1), (1, 1)]
)
def test_a_refusal_multiplies_the_limit_by_the_backoff_and_always_lowers_it(
    limit: int, after: int
) -> None:
    policy = AIMDPolicy(max_limit=64, limit=limit)
    assert policy.refused(policy.epoch, now=0.0) == after


def test_one_burst_of_refusals_is_one_decrease() -> None:
    """Requests sent together fail together: only those sent after the last decrease count."""
    policy = AIMDPolicy(max_limit=16)
    sent_in = policy.epoch
    limits = [policy.refused(sent_in, now=0.0) for _ in range(16)]
    assert limits == [14] * 16 and policy.decreases == 1
    assert policy.refused(policy.epoch, now=0.0) == 12  # one sent after the decrease
    assert policy.decreases == 2


def test_additive_increase_is_one_slot_per_window_of_successes() -> None:
    policy = AIMDPolicy(max_limit=8, limit=5)
    assert successes(policy, 5) == [5, 5, 5, 5, 6]
    assert successes(policy, 6) == [6] * 5 + [7]
    assert successes(policy, 7) == [7] * 6 + [8]
    assert policy.increases == 3


def test_the_limit_last_refused_is_tried_again_after_a_plateau() -> None:
    """Refused at 20: back to 19 in one window, then 4 windows at 19 before 20 is tried again;
    past it, one window a step again."""
    policy = AIMDPolicy(max_limit=32, limit=20)
    policy.refused(policy.epoch, now=0.0)
    assert (policy.limit, policy.ceiling) == (18, 20)
    assert successes(policy, 18)[-1] == 19
    climb = successes(policy, 4 * 19)
    assert climb == [19] * (4 * 19 - 1) + [20]
    assert successes(policy, 20) == [20] * 19 + [21]


def test_no_increase_while_the_limit_is_not_used() -> None:
    policy = AIMDPolicy(max_limit=8, limit=4)
    assert [policy.succeeded(1, 0.0) for _ in range(50)] == [4] * 50  # 1 of 4 slots in use
    assert [policy.succeeded(2, 0.0) for _ in range(4)] == [4, 4, 4, 5]  # half of them: grows


def test_no_increase_before_retry_after_has_passed() -> None:
    policy = AIMDPolicy(max_limit=8)
    policy.refused(policy.epoch, now=10.0, retry_after=2.0)
    assert policy.limit == 7
    assert successes(policy, 30, now=11.9) == [7] * 30
    # 8 was refused: it is tried again after 4 windows (see the plateau test)
    assert successes(policy, 4 * 7, now=12.0)[-1] == 8


def test_at_the_floor_retry_after_pauses_new_requests() -> None:
    """The server refuses even one request at a time: nothing new goes until it said."""
    policy = AIMDPolicy(max_limit=4, limit=1)
    assert policy.may_start(0, now=0.0)
    policy.refused(policy.epoch, now=5.0, retry_after=3.0)
    assert policy.limit == 1 and policy.decreases == 0
    assert not policy.may_start(0, now=7.99)
    assert policy.may_start(0, now=8.0)
    assert not policy.may_start(1, now=8.0)  # the limit still holds


def test_sustained_refusals_then_successes_fall_to_the_floor_and_recover() -> None:
    policy = AIMDPolicy(max_limit=16)
    falling = [policy.refused(policy.epoch, now=float(t)) for t in range(30)]
    assert falling[:4] == [14, 12, 10, 9] and falling[-1] == 1
    assert falling == sorted(falling, reverse=True)
    # 2 was the last limit refused: one plateau of 4 windows at 1, then one window a step
    rising = successes(policy, 4 + sum(range(2, 16)), now=100.0)
    assert rising[-1] == 16 and rising == sorted(rising)
    assert policy.summary() == {
        "concurrency_min": 1, "concurrency_max": 16, "concurrency_final": 16,
        "concurrency_decreases": 12, "concurrency_increases": 15,
    }  # fmt: skip
    assert [limit for _, limit in policy.trace] == [*falling[: falling.index(1) + 1], *range(2, 17)]


def test_steady_state_at_a_hard_limit_stays_at_it() -> None:
    """A server that takes exactly 6 at once: the limit settles at 6, probing 7 once a window."""
    policy = AIMDPolicy(max_limit=32)
    limits = []
    for step in range(400):
        now = float(step)
        if policy.limit > 6:  # the 7th request in flight is refused
            policy.refused(policy.epoch, now)
        else:
            policy.succeeded(policy.limit, now)
        limits.append(policy.limit)
    assert set(limits[100:]) <= {6, 7} and limits[100:].count(6) > 0.8 * 300


@pytest.mark.parametrize(
    "fields",
    [{"max_limit": 0}, {"max_limit": 4, "min_limit": 5}, {"max_limit": 4, "backoff": 1.0}],
)
def test_bad_bounds_are_rejected(fields: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        AIMDPolicy(**fields)  # type: ignore[arg-type]


def test_slots_follow_the_limit_first_come_first_served() -> None:
    async def scenario() -> tuple[list[int], list[int], list[int]]:
        slots = AdaptiveSlots(AIMDPolicy(max_limit=4))
        started: list[int] = []
        peak: list[int] = []
        gate = asyncio.Event()

        async def one(index: int, refuse: bool) -> None:
            async with slots.slot() as slot:
                started.append(index)
                peak.append(slots.in_flight)
                await gate.wait()
                if refuse:
                    slot.refused(None)
                else:
                    slot.answered()

        tasks = [asyncio.create_task(one(i, refuse=i == 0)) for i in range(12)]
        await asyncio.sleep(0.01)
        assert started == [0, 1, 2, 3] and slots.in_flight == 4
        gate.set()
        await asyncio.gather(*tasks)
        return started, peak, [limit for _, limit in slots.policy.trace]

    started, peak, limits = asyncio.run(scenario())
    assert started == list(range(12))  # in arrival order
    assert max(peak) == 4 and max(peak[6:]) <= 3
    assert limits == [3]  # the refusal took a slot away; 4 is tried again after 4 windows


def test_a_cancelled_waiter_leaves_no_slot_behind() -> None:
    async def scenario() -> int:
        slots = AdaptiveSlots(AIMDPolicy(max_limit=1))
        release = asyncio.Event()

        async def hold() -> None:
            async with slots.slot() as slot:
                await release.wait()
                slot.answered()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0.01)
        waiter.cancel()
        release.set()
        await holder
        with pytest.raises(asyncio.CancelledError):
            await waiter
        async with slots.slot() as slot:  # the one slot is free again
            slot.answered()
        return slots.in_flight

    assert asyncio.run(scenario()) == 0


def test_a_pause_at_the_floor_wakes_the_waiters_when_it_ends() -> None:
    async def scenario() -> float:
        slots = AdaptiveSlots(AIMDPolicy(max_limit=2, limit=1))
        loop = asyncio.get_running_loop()
        async with slots.slot() as slot:
            slot.refused(0.2)
        started = loop.time()
        async with slots.slot() as slot:
            slot.answered()
        return loop.time() - started

    waited = asyncio.run(scenario())
    assert 0.19 <= waited < 1.0


def test_fixed_slots_never_move() -> None:
    async def scenario() -> AIMDPolicy:
        slots = AdaptiveSlots(AIMDPolicy(max_limit=3), fixed=True)
        for _ in range(5):
            async with slots.slot() as slot:
                slot.refused(1.0)
        return slots.policy

    policy = asyncio.run(scenario())
    assert policy.limit == 3 and policy.decreases == 0 and math.isinf(policy.pause_until)


def test_the_public_pair_serves_a_retry_before_first_attempts_and_reports_outcomes() -> None:
    """`acquire` and `release` are what `slot()` is made of: a waiting retry takes the next
    free slot ahead of first attempts that came before it, and a refusal given back through
    `release` lowers the limit."""

    async def scenario() -> tuple[list[str], int, int]:
        slots = AdaptiveSlots(AIMDPolicy(max_limit=2))
        order: list[str] = []
        first = await slots.acquire()
        second = await slots.acquire()

        async def take(name: str, retry: bool) -> None:
            await slots.acquire(retry)
            order.append(name)

        waiting = [asyncio.create_task(take("new", retry=False))]
        await asyncio.sleep(0)
        waiting.append(asyncio.create_task(take("retry", retry=True)))
        await asyncio.sleep(0)
        refused = Slot(first)
        refused.refused(None)
        slots.release(refused)  # the limit falls to 1: nobody starts yet
        await asyncio.sleep(0)
        in_flight_after_refusal = slots.in_flight
        answered = Slot(second)
        answered.answered()
        slots.release(answered)
        await asyncio.sleep(0)
        return order, in_flight_after_refusal, slots.policy.limit

    order, in_flight, limit = asyncio.run(scenario())
    assert order == ["retry"] and in_flight == 1 and limit == 1
