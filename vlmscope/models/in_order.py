"""Hand finished responses to the runner in request order, as soon as a run of them is complete.

`Backend.generate`'s progress callback receives bare responses, so the runner can only tell which
request each belongs to if the chunks, concatenated, are the responses in request order. Backends
that finish requests out of order (an API answering concurrently, a local model sorting by prompt
length) collect them here by index and release the completed prefix.
"""

from __future__ import annotations

from vlmscope.messages import Response
from vlmscope.models.base import ProgressCallback


class InOrderSink:
    """Collects responses by index; `flush` passes the finished prefix to `on_done`.

    `min_chunk` holds back a prefix shorter than that (each callback is a cache transaction
    with an fsync; one per response would be slow); `flush(force=True)` sends whatever is ready.
    """

    def __init__(self, total: int, on_done: ProgressCallback | None, *, min_chunk: int = 1) -> None:
        self._responses: list[Response | None] = [None] * total
        self._on_done = on_done
        self._min_chunk = max(1, min_chunk)
        self._sent = 0
        self._ready_end = 0

    def put(self, index: int, response: Response) -> None:
        if self._responses[index] is not None:
            raise RuntimeError(f"request {index} answered twice")
        self._responses[index] = response
        while (
            self._ready_end < len(self._responses) and self._responses[self._ready_end] is not None
        ):
            self._ready_end += 1

    def flush(self, *, force: bool = False) -> None:
        ready = self._ready_end - self._sent
        if ready == 0 or (ready < self._min_chunk and not force):
            return
        chunk = [r for r in self._responses[self._sent : self._ready_end] if r is not None]
        self._sent = self._ready_end
        if self._on_done is not None:
            self._on_done(chunk)

    def all(self) -> list[Response]:
        """Every response, in order; a missing one is a bug in the backend, not a failed request."""
        done = [r for r in self._responses if r is not None]
        if len(done) != len(self._responses):
            raise RuntimeError("a request was left without a response")
        return done
