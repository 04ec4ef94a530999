"""What a public arena refuses before a model sees it: pure checks, each naming the limit.

- a prompt: blank, or longer than `limits.max_prompt_chars`;
- an image: too many, too large in bytes or pixels (a decompression bomb is refused before it
  is decoded), not an image at all, or a format not in `limits.image_formats`. Pillow reads
  the header and `verify()` walks the file's structure without decoding pixels;
- too many asks or votes in the sliding window, per session and per address (`RateLimiter`,
  whose clock is injected so tests move time by hand).
"""

from __future__ import annotations

import hashlib
import io
import threading
import time
import warnings
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from vlmscope.arena.config import Limits


class Refused(ValueError):
    """A request the arena will not serve; the message is safe to show the user."""


@dataclass(frozen=True)
class CheckedImage:
    data: bytes
    sha256: str
    format: str
    width: int
    height: int


def client_address(forwarded: str, proxy_hops: int, connection: str) -> str:
    """The client's address from a forwarding header (`X-Forwarded-For: client, proxy1, ...`).

    Each proxy appends the address it was reached from, so only the last `proxy_hops` entries
    were written by proxies we trust; the first entries are whatever the client sent (taking
    the first would let a client pick its own rate-limit key). A header with fewer entries
    than hops gives its first; no header gives the connection's address."""
    entries = [entry.strip() for entry in forwarded.split(",") if entry.strip()]
    if not entries:
        return connection
    return entries[-proxy_hops] if len(entries) >= proxy_hops else entries[0]


def check_prompt(text: str, limits: Limits) -> str:
    """The prompt with surrounding whitespace removed, or Refused."""
    stripped = text.strip()
    if not stripped:
        raise Refused("The prompt is empty.")
    try:  # a lone surrogate (JSON allows "\ud83d") is no text any store or model can take
        stripped.encode("utf-8")
    except UnicodeEncodeError as err:
        raise Refused(f"The prompt has an invalid character at position {err.start}.") from None
    if len(stripped) > limits.max_prompt_chars:
        raise Refused(
            f"The prompt has {len(stripped)} characters; the limit is {limits.max_prompt_chars}."
        )
    return stripped


def check_images(images: Sequence[bytes], limits: Limits) -> list[CheckedImage]:
    if len(images) > limits.max_images:
        raise Refused(f"{len(images)} images; the limit is {limits.max_images} per message.")
    return [check_image(data, limits, number) for number, data in enumerate(images, 1)]


def check_image(data: bytes, limits: Limits, number: int = 1) -> CheckedImage:
    """One uploaded file, accepted only as an image of an allowed format within the limits."""
    if len(data) > limits.max_image_bytes:
        raise Refused(
            f"Image {number} has {len(data)} bytes; the limit is {limits.max_image_bytes}."
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                kind, (width, height) = image.format or "", image.size
                if width * height > limits.max_image_pixels:
                    raise Refused(
                        f"Image {number} is {width}x{height} pixels; the limit is "
                        f"{limits.max_image_pixels} pixels."
                    )
                image.verify()
    except Refused:
        raise
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Warning) as err:
        raise Refused(f"File {number} is not a readable image.") from err
    except Image.DecompressionBombError as err:
        raise Refused(f"Image {number} is too large to decode.") from err
    # A camera JPEG carrying a multi-picture (MPO) block: a JPEG to every reader and model
    kind = "JPEG" if kind == "MPO" else kind
    if kind not in limits.image_formats:
        raise Refused(
            f"Image {number} is {kind or 'of an unknown format'}; allowed: "
            f"{', '.join(limits.image_formats)}."
        )
    return CheckedImage(data, hashlib.sha256(data).hexdigest(), kind, width, height)


_PRUNE_AT = 10_000  # keys held before the idle ones are forgotten


class RateLimiter:
    """At most `limit` events per key in any `window_s` seconds (a sliding window).

    One lock guards every key: the Space calls it from many worker threads."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._events: defaultdict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Record one event for `key` and say whether it is within the limit (a refused event
        is not recorded, so a client hammering a closed door does not extend its wait)."""
        with self._lock:
            now = self.clock()
            events = self._events[key]
            while events and events[0] <= now - self.window_s:
                events.popleft()
            if len(events) >= self.limit:
                return False
            events.append(now)
            if len(self._events) > _PRUNE_AT:
                self._prune(now)
            return True

    def _prune(self, now: float) -> None:
        """Forget keys with no event in the window (a public Space sees endless sessions)."""
        for key in [k for k, e in self._events.items() if not e or e[-1] <= now - self.window_s]:
            del self._events[key]

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may act again (0 when it may now)."""
        with self._lock:
            events = self._events.get(key)
            if not events or len(events) < self.limit:
                return 0.0
            return max(0.0, events[0] + self.window_s - self.clock())
