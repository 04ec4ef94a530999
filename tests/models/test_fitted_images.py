"""An image fitted to a side once is not decoded and resized again: the same bytes and notes
come back from `FITTED`; entries stay within their byte budget, oldest out first."""

from __future__ import annotations

import io
import threading

import pytest
from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import user_request
from vlmscope.models import fitted_images, images
from vlmscope.models.fitted_images import Fitted, FittedImages
from vlmscope.models.images import apply_image_budget


def photo(width: int, height: int, colour: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (colour, 40, 80)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture
def resizes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Counts real resizes, on a fresh cache."""
    monkeypatch.setattr(fitted_images, "FITTED", FittedImages(max_bytes=2**20))
    calls: list[tuple[int, int]] = []
    real = images._resized

    def counting(opened: Image.Image, max_side: int) -> Fitted:
        calls.append(opened.size)
        return real(opened, max_side)

    monkeypatch.setattr(images, "_resized", counting)
    return calls


def test_an_image_sent_again_is_resized_once(resizes: list[tuple[int, int]]) -> None:
    big, small = photo(1600, 1200, 10), photo(200, 100, 20)
    budget = ImageBudget(max_images=4, max_side=1000)
    first, first_notes = apply_image_budget(user_request(big, "which?"), budget)
    again, again_notes = apply_image_budget(user_request(small, big, "and now?"), budget)
    assert resizes == [(1600, 1200)]
    assert again.images[1].data == first.images[0].data
    assert again.images[0].data == small  # within the budget: the same bytes, not cached
    assert first_notes == ["resized image 1 from 1600x1200 to 1000x750"]
    assert again_notes == ["resized image 2 from 1600x1200 to 1000x750"]  # its own number


def test_another_side_is_another_entry(resizes: list[tuple[int, int]]) -> None:
    big = photo(1600, 1200, 30)
    wide, _ = apply_image_budget(user_request(big), ImageBudget(max_images=1, max_side=1000))
    narrow, _ = apply_image_budget(user_request(big), ImageBudget(max_images=1, max_side=500))
    assert len(resizes) == 2
    with Image.open(io.BytesIO(narrow.images[0].data)) as image:
        assert image.size == (500, 375)
    with Image.open(io.BytesIO(wide.images[0].data)) as image:
        assert image.size == (1000, 750)


def fitted(size: int) -> Fitted:
    return Fitted(b"x" * size, (2, 2), (1, 1))


def test_the_byte_budget_evicts_the_least_recently_used() -> None:
    cache = FittedImages(max_bytes=250)
    cache.put("a", 10, fitted(100))
    cache.put("b", 10, fitted(100))
    assert cache.get("a", 10) is not None  # now b is the oldest
    cache.put("c", 10, fitted(100))
    assert cache.get("b", 10) is None and cache.get("a", 10) is not None
    assert cache.bytes_held == 200 and len(cache) == 2
    cache.put("huge", 10, fitted(300))  # over the whole budget: not kept, nothing evicted
    assert cache.get("huge", 10) is None and len(cache) == 2


def test_threads_keep_the_count_of_bytes_exact() -> None:
    cache = FittedImages(max_bytes=5_000)

    def fill(worker: int) -> None:
        for i in range(300):
            cache.put(f"{worker}-{i % 40}", 10, fitted(10 + i % 7))
            cache.get(f"{(worker + 1) % 4}-{i % 40}", 10)

    threads = [threading.Thread(target=fill, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    held = sum(f.held for f in cache._entries.values())
    assert cache.bytes_held == held <= 5_000


def test_requests_that_carry_the_same_new_image_fit_it_once() -> None:
    cache = FittedImages(max_bytes=2**20)
    calls: list[int] = []
    started = threading.Barrier(6)

    def fit() -> Fitted:
        calls.append(1)
        threading.Event().wait(0.05)  # the others ask while this one works
        return fitted(100)

    results: list[Fitted] = []

    def ask() -> None:
        started.wait()
        results.append(cache.get_or_fit("same", 1000, fit))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(results) == 6
    assert all(result is results[0] for result in results)


def test_an_image_that_cannot_be_fitted_fails_every_caller_and_is_not_kept() -> None:
    cache = FittedImages(max_bytes=2**20)

    def broken() -> Fitted:
        raise OSError("truncated")

    for _ in range(2):
        with pytest.raises(OSError, match="truncated"):
            cache.get_or_fit("bad", 1000, broken)
    assert len(cache) == 0 and cache._busy == {}
