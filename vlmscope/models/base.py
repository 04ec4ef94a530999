"""What every model backend provides.

The runner talks to every model the same way: a batch of requests in, one response per request
out, in order, never raising for a single bad request (a failure is a response with a status).
`identity` names everything that changes the answers (model, dtype, image budget, ...) and
nothing that does not (batch size, concurrency, device map), because it is part of the cache key:
changing the batch size must not invalidate a cache, changing the model must.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from vlmscope.messages import Request, Response

ProgressCallback = Callable[[Sequence[Response]], None]
T = TypeVar("T")


class LoopLocal(Generic[T]):
    """One asyncio primitive per event loop.

    A lock or semaphore belongs to the loop it was first used in; the runner starts a fresh loop
    for each track it scores, so a primitive kept on a long-lived object must be made per loop.
    """

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._loop: asyncio.AbstractEventLoop | None = None
        self._value: T | None = None

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        if self._value is None or loop is not self._loop:
            self._loop, self._value = loop, self._factory()
        return self._value


@runtime_checkable
class Backend(Protocol):
    name: str

    @property
    def identity(self) -> dict[str, Any]: ...

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        """Answer every request, in order. `on_done` is called with each finished chunk."""
        ...

    async def agenerate(self, request: Request) -> Response:
        """Answer one request; judges use this so many can be in flight at once."""
        ...


class SyncBackend:
    """Base for backends whose work is synchronous (local models, the oracle).

    `agenerate` runs one request in a worker thread under a lock: a local model is one device
    and one set of weights, so judge calls to it are serialised rather than interleaved.
    """

    name: str = ""

    def __init__(self) -> None:
        self._lock = LoopLocal(asyncio.Lock)

    async def agenerate(self, request: Request) -> Response:
        async with self._lock.get():
            return (await asyncio.to_thread(self._generate_one, request))[0]

    def _generate_one(self, request: Request) -> list[Response]:
        """`generate([request])`, with a `StopIteration` it lets out turned into a
        `RuntimeError`: an asyncio future cannot hold a `StopIteration` (it refuses it in a
        callback and is never resolved), so the awaiting run would hang instead of failing."""
        try:
            return self.generate([request])
        except StopIteration as err:
            raise RuntimeError(f"{type(self).__name__}.generate raised StopIteration") from err

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        raise NotImplementedError
