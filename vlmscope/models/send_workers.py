"""Requests answered by one worker per slot, each sending its next request in the same step
that read its last reply.

With a task per request, a burst of replies is read in one turn of the event loop and the
tasks their slots free are woken in the next, so at 64 in flight every next request left
after the whole burst had been read: 2 ms late on average against a 50 ms server, 0.89-0.92 of
the ideal rate (`benchmarks/api_concurrency.py`). A worker that has read its reply takes the
next request at once, as a bare socket loop does.

A request that waits out a backoff would hold its worker, and the slot it left would stay idle
for the wait: the request says so (`backing_off`), another worker is started for the time, and
the pool shrinks back to its size when the wait is over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

_ON_BACKOFF: ContextVar[Callable[[int], None] | None] = ContextVar(
    "vlmscope_on_backoff", default=None
)


def backing_off(change: int) -> None:
    """Say that the current request starts (+1) or ends (-1) a backoff wait; nothing outside a
    worker (a judge's single request)."""
    hook = _ON_BACKOFF.get()
    if hook is not None:
        hook(change)


async def answer_each(
    items: Iterable[T], answer: Callable[[T], Awaitable[None]], size: int
) -> None:
    """Await `answer(item)` for every item, taken in order by `size` workers, plus one for each
    request waiting out a backoff. `answer` must not raise: an error ends every worker."""
    pending = iter(items)
    tasks: list[asyncio.Task[None]] = []
    live = waiting = 0

    def on_backoff(change: int) -> None:
        nonlocal waiting
        waiting += change
        if change > 0 and live - waiting < size:
            start()

    async def work() -> None:
        nonlocal live
        _ON_BACKOFF.set(on_backoff)
        try:
            for item in pending:
                await answer(item)
                if live - waiting > size:  # a backoff ended: the pool is one too large
                    return
        finally:
            live -= 1

    def start() -> None:
        nonlocal live
        live += 1
        tasks.append(asyncio.get_running_loop().create_task(work()))

    for _ in range(size):
        start()
    try:
        done = 0
        while done < len(tasks):  # workers started meanwhile are appended: gather those next
            started = tasks[done:]
            done = len(tasks)
            await asyncio.gather(*started)  # one wake-up for all, not one per worker
    finally:
        for task in tasks:
            task.cancel()
