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
from typing import Any, Protocol, runtime_checkable

from vlmscope.messages import Request, Response

ProgressCallback = Callable[[Sequence[Response]], None]


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
        self._lock = asyncio.Lock()

    async def agenerate(self, request: Request) -> Response:
        async with self._lock:
            return (await asyncio.to_thread(self.generate, [request]))[0]

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        raise NotImplementedError
