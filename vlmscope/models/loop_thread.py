"""An asyncio event loop running in a daemon thread.

An async HTTP client and its connection pool belong to the event loop they were first used in,
and so does an `asyncio.Semaphore`. A backend is called both from synchronous code (the runner)
and from other event loops (judges, each `asyncio.run` of a track), so it keeps one loop of its
own in a thread and runs every request there: one client and one concurrency limit serve all
callers, and a caller that is itself inside a running loop (a notebook, a web app) works too.

The loop is uvloop's where it is installed (it is on Linux and macOS): its event loop and
transports are compiled, so each request's turns of the loop cost less CPU. Against a 50 ms
server one request at a time, the API client's CPU per request fell from 0.69 to about 0.5 ms
with it (`benchmarks/api_concurrency.py`). Elsewhere the standard loop serves, unchanged.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """Started on first use; `stop` ends it, and a later `submit` starts a fresh one."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule `coro` on the loop; thread-safe, returns at once."""
        return asyncio.run_coroutine_threadsafe(coro, self._running_loop())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the loop and wait for its result (from any thread but the loop's own)."""
        return self.submit(coro).result()

    async def run_async(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` running on this loop from another loop; cancelling the caller cancels it."""
        return await asyncio.wrap_future(self.submit(coro))

    def stop(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if threading.current_thread() is not thread:
            thread.join()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = new_event_loop()
                ready = threading.Event()
                thread = threading.Thread(
                    target=_run_forever, args=(loop, ready), name=self.name, daemon=True
                )
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop


def _run_forever(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    try:
        loop.run_forever()
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop where it is installed, else the standard one."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
