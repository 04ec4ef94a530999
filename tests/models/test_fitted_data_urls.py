"""A fitted image's data URL is made once and kept beside its bytes: a judge sends a question's
image with every answer it judges, and each base64 encoding of a 500 KB image costs 0.75 ms.
The bodies are the bytes they were when every request encoded its images afresh, and the
cache's byte budget counts the data URLs it keeps."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from PIL import Image

from tests.servers import OpenAIStub
from vlmscope.config import ImageBudget, OpenAIModelConfig
from vlmscope.messages import ImagePart, Request, TextPart, Turn, user_request
from vlmscope.models import fitted_images, openai_payload
from vlmscope.models.fitted_images import Fitted, FittedImages
from vlmscope.models.images import apply_image_budget
from vlmscope.models.openai_body import encode_body
from vlmscope.models.openai_compat import OpenAIBackend
from vlmscope.models.openai_prepared import encode
from vlmscope.models.openai_request import request_body


def config(base_url: str = "http://127.0.0.1:9/v1", **fields: Any) -> OpenAIModelConfig:
    settings = {"backend": "openai", "name": "stub", "base_url": base_url, "model": "m"}
    return OpenAIModelConfig.model_validate({**settings, **fields})


def photo(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((width, height), 60).convert("RGB").save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture
def encodings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts base64 encodings of request images (their sizes), on a fresh cache."""
    monkeypatch.setattr(fitted_images, "FITTED", FittedImages(max_bytes=2**24))
    calls: list[int] = []
    real = base64.b64encode

    def counting(data: bytes, *args: Any) -> bytes:
        calls.append(len(data))
        return real(data, *args)

    monkeypatch.setattr(openai_payload.base64, "b64encode", counting)
    return calls


def as_before(request: Request, settings: OpenAIModelConfig) -> bytes:
    """The body as it was written when every request encoded its images afresh: the budget's
    images as plain parts, which nothing remembers."""
    budgeted, _ = apply_image_budget(request, settings.image_budget)
    plain = tuple(
        Turn(turn.role, tuple(ImagePart(p.data, p.name) if isinstance(p, ImagePart) else p
                              for p in turn.parts))
        for turn in budgeted.turns
    )  # fmt: skip
    return encode_body(request_body(budgeted.with_turns(plain), settings))


def test_the_same_image_in_two_requests_is_base64_encoded_once(encodings: list[int]) -> None:
    settings = config()
    big, small = photo(1600, 1200), photo(300, 200)
    first = user_request(big, "which answer is better, A or B?")
    second = user_request(small, big, "and now, B or A?")
    bodies = [encode(first, settings).body, encode(second, settings).body]
    assert len(encodings) == 2  # the fitted photo once, the small one (sent as it is) once
    assert len(bodies[0]) > 0.75 * encodings[0] * 4 / 3  # the photo's data URL is in it
    encodings.clear()
    assert [as_before(first, settings), as_before(second, settings)] == bodies
    assert len(encodings) == 3  # the plain parts are encoded afresh: what each did before
    assert encode(second, settings).body == bodies[1]
    assert len(encodings) == 4  # only the small image again


def test_a_judges_burst_encodes_the_image_once_and_sends_the_same_bytes(
    encodings: list[int],
) -> None:
    big = photo(1600, 1200)
    requests = [user_request(big, f"answer {i}: is it right?") for i in range(12)]
    with (
        OpenAIStub(latency_s=0.01) as stub,
        OpenAIBackend(config(stub.base_url, concurrency=4)) as backend,
    ):
        answers = backend.generate(requests)
    assert [a.text for a in answers] == [f"echo: answer {i}: is it right?" for i in range(12)]
    assert len(encodings) == 1
    fitted = fitted_images.FITTED.get(ImagePart(big).digest(), 1000)
    assert fitted is not None and fitted.data_url is not None
    urls = {call.body["messages"][0]["content"][0]["image_url"]["url"] for call in stub.calls}  # type: ignore[index]
    expected = "data:image/jpeg;base64," + base64.b64encode(fitted.data).decode()
    assert urls == {expected}


def test_an_image_within_the_budget_is_encoded_for_each_request(encodings: list[int]) -> None:
    """Only fitted images are kept: one sent as it is has no entry to keep its URL in."""
    small = photo(300, 200)
    for text in ("one", "two"):
        encode(user_request(small, text), config())
    assert len(encodings) == 2 and len(fitted_images.FITTED) == 0


def fitted(size: int) -> Fitted:
    return Fitted(b"x" * size, (2, 2), (1, 1))


def test_the_byte_budget_counts_the_data_urls_kept() -> None:
    cache = FittedImages(max_bytes=500)
    cache.put("a", 10, fitted(100))
    cache.put("b", 10, fitted(100))
    url = cache.data_url("a", 10, b"x" * 100, lambda data: "u" * 150)
    assert url == "u" * 150 and cache.bytes_held == 350
    assert cache.data_url("a", 10, b"x" * 100, lambda data: "not made again") == url
    cache.data_url("b", 10, b"x" * 100, lambda data: "v" * 150)  # 500: still within
    assert len(cache) == 2 and cache.bytes_held == 500
    cache.put("c", 10, fitted(100))  # a, the oldest, leaves with its URL
    assert cache.get("a", 10) is None and cache.bytes_held == 350
    held = sum(f.held for f in cache._entries.values())
    assert held == cache.bytes_held


def test_a_url_of_an_entry_gone_is_made_but_not_kept() -> None:
    cache = FittedImages(max_bytes=500)
    assert cache.data_url("gone", 10, b"x" * 100, lambda data: "u" * 10) == "u" * 10
    assert len(cache) == 0 and cache.bytes_held == 0 and cache._busy == {}


def test_a_fitted_part_equals_and_hashes_as_a_plain_part() -> None:
    """The part remembers its entry beside its fields: requests, their hashes and cache keys
    are the same as before."""
    budgeted, _ = apply_image_budget(user_request(photo(1600, 1200), "q"), ImageBudget())
    (part,) = budgeted.images
    plain = ImagePart(part.data, part.name)
    assert part == plain and hash(part) == hash(plain)
    turns = (Turn("user", (plain, TextPart("q"))),)
    assert budgeted.content_hash() == budgeted.with_turns(turns).content_hash()
