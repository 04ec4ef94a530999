"""A pool of workers answers every item once, at most `size` at a time, starts a worker for
each request waiting out a backoff and shrinks back after, and stops every worker when it is
cancelled."""

from __future__ import annotations

import asyncio

import pytest

from vlmscope.models.send_workers import answer_each, backing_off


def test_every_item_is_answered_once_by_at_most_size_at_a_time() -> None:
    answered: list[int] = []
    active = peak = 0

    async def answer(item: int) -> None:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.001 * (item % 3))
        active -= 1
        answered.append(item)

    asyncio.run(answer_each(range(40), answer, 4))
    assert sorted(answered) == list(range(40)) and peak == 4


def test_a_backoff_lends_its_place_to_another_worker_and_the_pool_shrinks_after() -> None:
    busy = peak_while_waiting = 0
    waiting = asyncio.Event()
    workers_seen: set[int] = set()

    async def answer(item: int) -> None:
        nonlocal busy, peak_while_waiting
        workers_seen.add(id(asyncio.current_task()))
        if item == 0:  # refused: waits out its backoff outside any slot
            backing_off(+1)
            waiting.set()
            await asyncio.sleep(0.05)
            backing_off(-1)
            waiting.clear()
            return
        busy += 1
        if waiting.is_set():
            peak_while_waiting = max(peak_while_waiting, busy)
        await asyncio.sleep(0.002)
        busy -= 1

    async def run() -> int:
        await answer_each(range(60), answer, 2)
        return len(asyncio.all_tasks())

    left = asyncio.run(run())
    assert peak_while_waiting == 2  # two requests in flight while the third waited
    assert len(workers_seen) == 3 and left == 1  # one more worker, and none left running


def test_cancelling_the_pool_stops_every_worker() -> None:
    started: list[int] = []

    async def answer(item: int) -> None:
        started.append(item)
        await asyncio.sleep(10)

    async def run() -> set[asyncio.Task[object]]:
        pool = asyncio.create_task(answer_each(range(10), answer, 3))
        await asyncio.sleep(0.01)
        pool.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pool
        await asyncio.sleep(0)
        return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}

    assert asyncio.run(run()) == set() and started == [0, 1, 2]
