"""Images already fitted to a side, kept by content, so that an image sent again is not
decoded, resized and re-encoded again.

A judge sees a question's image once for each answer it judges (both orders, every model), and
a MEGA-Bench task's demonstration images come with each of its queries. Fitting a 1600 px photo
to 1000 px costs about 65 ms of CPU (`benchmarks/api_concurrency.py --images 1`); finding it
here costs a dictionary lookup on the source's sha256, which the response cache has usually
computed already. Entries are kept up to a byte budget, the least recently used leaving first.
Bodies are encoded on worker threads, many at once: the requests that carry the same new image
(a judge's burst over every answer to one question) wait for the first of them to fit it, and
then take its bytes, rather than each doing the same work.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Fitted:
    """A resized image's bytes, and its size before and after (for the response's note)."""

    data: bytes
    source_size: tuple[int, int]
    size: tuple[int, int]


class FittedImages:
    """Fitted images keyed by (sha256 of the source bytes, the side they were fitted to)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, int], Fitted] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._fitting: dict[tuple[str, int], threading.Lock] = {}  # one per image being fitted

    def get(self, digest: str, side: int) -> Fitted | None:
        with self._lock:
            fitted = self._entries.get((digest, side))
            if fitted is not None:
                self._entries.move_to_end((digest, side))
            return fitted

    def get_or_fit(self, digest: str, side: int, fit: Callable[[], Fitted]) -> Fitted:
        """The image fitted to `side`: kept, or made by `fit` (once, whoever else asks for the
        same image meanwhile); an error of `fit` reaches every caller that ran it."""
        key = (digest, side)
        with self._lock:
            fitting = self._fitting.setdefault(key, threading.Lock())
        try:
            with fitting:
                fitted = self.get(digest, side)
                if fitted is None:
                    fitted = fit()
                    self.put(digest, side, fitted)
                return fitted
        finally:
            with self._lock:
                self._fitting.pop(key, None)

    def put(self, digest: str, side: int, fitted: Fitted) -> None:
        """Keep `fitted` unless it alone is over the budget; evict the oldest to make room."""
        if len(fitted.data) > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop((digest, side), None)
            self._bytes -= len(old.data) if old is not None else 0
            self._entries[(digest, side)] = fitted
            self._bytes += len(fitted.data)
            while self._bytes > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= len(evicted.data)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes_held(self) -> int:
        return self._bytes


# One per process: a few hundred photos fitted to 1000 px.
FITTED = FittedImages(max_bytes=256 * 2**20)
