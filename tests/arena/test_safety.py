"""Hostile inputs are refused before a model sees them: an oversized image, a file that is not
an image, a decompression bomb, a format not allowed, too many images, an empty or too long
prompt; the rate limiter counts per key in a sliding window on an injected clock."""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image

from tests.arena.conftest import Clock, png
from vlmscope.arena.config import Limits
from vlmscope.arena.safety import (
    RateLimiter,
    Refused,
    check_image,
    check_images,
    check_prompt,
    client_address,
)

LIMITS = Limits(max_image_bytes=50_000, max_image_pixels=1_000_000, max_prompt_chars=100)


def test_a_small_png_passes_with_its_hash_and_size() -> None:
    checked = check_image(png(size=(30, 20)), LIMITS)
    assert (checked.format, checked.width, checked.height) == ("PNG", 30, 20)
    assert len(checked.sha256) == 64


def test_an_oversized_image_is_refused_by_its_bytes() -> None:
    noise = io.BytesIO()
    Image.frombytes("RGB", (200, 200), os.urandom(200 * 200 * 3)).save(noise, "PNG")
    with pytest.raises(Refused, match="limit is 50000"):
        check_image(noise.getvalue(), LIMITS)


def test_a_decompression_bomb_is_refused_by_its_pixels() -> None:
    bomb = io.BytesIO()
    Image.new("1", (4000, 4000)).save(bomb, "PNG")  # a few kB on disk, 16 M pixels
    assert len(bomb.getvalue()) < LIMITS.max_image_bytes
    with pytest.raises(Refused, match="pixels"):
        check_image(bomb.getvalue(), LIMITS)


@pytest.mark.parametrize(
    "data",
    [
        b"<script>alert(1)</script>",
        b"%PDF-1.4 not an image",
        png()[:40],
        b"\x89PNG\r\n\x1a\n" + b"\0" * 64,
    ],
)
def test_a_file_that_is_not_a_whole_image_is_refused(data: bytes) -> None:
    with pytest.raises(Refused, match="not a readable image"):
        check_image(data, LIMITS)


def test_a_format_outside_the_allowed_list_is_refused() -> None:
    bmp = io.BytesIO()
    Image.new("RGB", (4, 4)).save(bmp, "BMP")
    with pytest.raises(Refused, match="BMP"):
        check_image(bmp.getvalue(), LIMITS)


def test_a_camera_jpeg_with_a_multi_picture_block_is_a_jpeg() -> None:
    """Phones write JPEGs with an MPO block, which Pillow names "MPO": still a JPEG."""
    camera = io.BytesIO()
    first, second = Image.new("RGB", (16, 12), "red"), Image.new("RGB", (16, 12), "blue")
    first.save(camera, "MPO", save_all=True, append_images=[second])
    with Image.open(io.BytesIO(camera.getvalue())) as opened:
        assert opened.format == "MPO"
    checked = check_image(camera.getvalue(), LIMITS)
    assert (checked.format, checked.width, checked.height) == ("JPEG", 16, 12)


def test_too_many_images_are_refused() -> None:
    with pytest.raises(Refused, match="limit is 4"):
        check_images([png()] * 5, LIMITS)


def test_prompt_limits() -> None:
    assert check_prompt("  <script>x</script>  ", LIMITS) == "<script>x</script>"
    with pytest.raises(Refused, match="empty"):
        check_prompt(" \n ", LIMITS)
    with pytest.raises(Refused, match="101 characters"):
        check_prompt("x" * 101, LIMITS)
    with pytest.raises(Refused, match="invalid character at position 5"):
        check_prompt("what \ud83d is this?", LIMITS)  # a lone surrogate, as JSON may carry


def test_the_client_address_is_the_entry_the_trusted_proxies_wrote() -> None:
    """A client can send any X-Forwarded-For; a proxy appends the address it saw. Taking the
    first entry would let a client choose its rate-limit key; the last `proxy_hops` are ours."""
    spoofed = "203.0.113.19, 198.51.100.7"  # the client wrote the first, our proxy the last
    assert client_address(spoofed, 1, "10.0.0.2") == "198.51.100.7"
    assert client_address("203.0.113.19, 198.51.100.7, 10.1.1.1", 2, "x") == "198.51.100.7"
    assert client_address("198.51.100.7", 1, "10.0.0.2") == "198.51.100.7"  # an overwriting proxy
    assert client_address("198.51.100.7", 3, "10.0.0.2") == "198.51.100.7"  # fewer than hops
    assert client_address(" , ", 1, "10.0.0.2") == "10.0.0.2"  # no header: the connection


def test_rate_limiter_slides_and_keeps_keys_apart() -> None:
    clock = Clock(0.0)
    limiter = RateLimiter(2, 10.0, clock)
    assert limiter.allow("a") and limiter.allow("a")
    assert not limiter.allow("a")
    assert limiter.allow("b")
    assert limiter.retry_after("a") == pytest.approx(10.0)
    clock.now = 9.0
    assert not limiter.allow("a")  # a refused event does not extend the wait
    clock.now = 10.0
    assert limiter.allow("a")
    assert limiter.retry_after("b") == 0.0


def test_rate_limiter_forgets_idle_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    import vlmscope.arena.safety as safety

    monkeypatch.setattr(safety, "_PRUNE_AT", 3)
    clock = Clock(0.0)
    limiter = RateLimiter(1, 10.0, clock)
    for key in "abc":
        assert limiter.allow(key)
    clock.now = 11.0
    assert limiter.allow("d")  # the fourth key: the idle three are dropped
    assert set(limiter._events) == {"d"}
    assert limiter.allow("a")  # and a forgotten key starts afresh
