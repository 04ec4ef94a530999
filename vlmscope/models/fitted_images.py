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

An API request sends each image as a base64 data URL, 0.75 ms of CPU for a 500 KB image: the
first request that sends a fitted image keeps its data URL beside the bytes (`data_url`), and
the byte budget counts both. The fitted image's part remembers its entry (`fitted_part`), so
finding the data URL costs no hashing of the bytes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

from vlmscope.messages import ImagePart

_ENTRY = "_fitted_entry"  # where a fitted image's part keeps the key of its entry


@dataclass(frozen=True)
class Fitted:
    """A resized image's bytes, its size before and after (for the response's note), and its
    data URL once a request has sent it."""

    data: bytes
    source_size: tuple[int, int]
    size: tuple[int, int]
    data_url: str | None = None

    @property
    def held(self) -> int:
        """Bytes of memory the entry holds: the image and its data URL (ASCII, a byte each)."""
        return len(self.data) + (len(self.data_url) if self.data_url is not None else 0)


class FittedImages:
    """Fitted images keyed by (sha256 of the source bytes, the side they were fitted to)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, int], Fitted] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._busy: dict[tuple[str, int, str], threading.Lock] = {}  # one per entry being made

    def get(self, digest: str, side: int) -> Fitted | None:
        with self._lock:
            fitted = self._entries.get((digest, side))
            if fitted is not None:
                self._entries.move_to_end((digest, side))
            return fitted

    def get_or_fit(self, digest: str, side: int, fit: Callable[[], Fitted]) -> Fitted:
        """The image fitted to `side`: kept, or made by `fit` (once, whoever else asks for the
        same image meanwhile); an error of `fit` reaches every caller that ran it."""
        with self._alone(digest, side, "fit"):
            fitted = self.get(digest, side)
            if fitted is None:
                fitted = fit()
                self.put(digest, side, fitted)
            return fitted

    def data_url(self, digest: str, side: int, data: bytes, make: Callable[[bytes], str]) -> str:
        """The data URL of the image fitted to `side`, whose bytes are `data`: kept, or made by
        `make(data)` (once, whoever else asks meanwhile) and kept beside the bytes while the
        entry is. An entry gone meanwhile (evicted) has its URL made, not kept."""
        kept = self._kept_url(digest, side, data)
        if kept is not None:
            return kept
        with self._alone(digest, side, "url"):
            kept = self._kept_url(digest, side, data)
            if kept is not None:
                return kept
            url = make(data)
            with self._lock:
                entry = self._entries.get((digest, side))
                if entry is not None and entry.data == data:
                    self._store(digest, side, replace(entry, data_url=url))
            return url

    def put(self, digest: str, side: int, fitted: Fitted) -> None:
        """Keep `fitted` unless it alone is over the budget; evict the oldest to make room."""
        if fitted.held > self.max_bytes:
            return
        with self._lock:
            self._store(digest, side, fitted)

    def _store(self, digest: str, side: int, fitted: Fitted) -> None:
        """Keep `fitted`, the newest entry, and evict the oldest while over the budget (it
        too, if it alone is over); call with the lock held."""
        old = self._entries.pop((digest, side), None)
        self._bytes -= old.held if old is not None else 0
        self._entries[(digest, side)] = fitted
        self._bytes += fitted.held
        while self._bytes > self.max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.held

    def _kept_url(self, digest: str, side: int, data: bytes) -> str | None:
        with self._lock:
            entry = self._entries.get((digest, side))
            if entry is None or entry.data_url is None:
                return None
            if entry.data is not data and entry.data != data:
                return None
            self._entries.move_to_end((digest, side))
            return entry.data_url

    @contextmanager
    def _alone(self, digest: str, side: int, work: str) -> Iterator[None]:
        """Held by one thread at a time per entry and kind of work: the others wait for its
        result rather than doing the same work."""
        key = (digest, side, work)
        with self._lock:
            busy = self._busy.setdefault(key, threading.Lock())
        try:
            with busy:
                yield
        finally:
            with self._lock:
                self._busy.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes_held(self) -> int:
        return self._bytes


# One per process: a hundred or more photos fitted to 1000 px, with their data URLs.
FITTED = FittedImages(max_bytes=256 * 2**20)


def fitted_part(fitted: Fitted, digest: str, side: int, name: str) -> ImagePart:
    """The part that sends `fitted`, the source with sha256 `digest` fitted to `side`; it
    remembers its entry, for `data_url`. It equals, and hashes as, a plain part of the bytes."""
    part = ImagePart(fitted.data, name)
    object.__setattr__(part, _ENTRY, (digest, side))
    return part


def data_url(part: ImagePart, make: Callable[[bytes], str]) -> str:
    """`make(part.data)`, the part's data URL; for a fitted image, made once and kept in
    `FITTED` beside its bytes."""
    entry: tuple[str, int] | None = part.__dict__.get(_ENTRY)
    if entry is None:
        return make(part.data)
    return FITTED.data_url(*entry, part.data, make)
