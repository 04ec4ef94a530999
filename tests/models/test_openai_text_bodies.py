"""Bodies without images are encoded once each, in one pass before any request is sent.

They skip the room where image bodies wait encoded for a slot (`_answer_with_retries`): text
bodies are small, and the runner hands an API backend at most `commit_every` requests per call,
so holding them all is bounded. A retry must resend the bytes encoded the first time.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from tests.servers import Call, OpenAIStub, Reply
from vlmscope.config import OpenAIModelConfig
from vlmscope.messages import Request, user_request
from vlmscope.models import openai_compat, openai_prepared
from vlmscope.models.openai_compat import OpenAIBackend
from vlmscope.models.openai_prepared import Prepared


def config(base_url: str, **fields: Any) -> OpenAIModelConfig:
    settings = {
        "backend": "openai", "name": "stub", "base_url": base_url, "model": "m",
        "concurrency": 3, "timeout_s": 10.0, "max_retries": 3,
        "backoff_base_s": 0.0, "backoff_max_s": 0.0,
    }  # fmt: skip
    return OpenAIModelConfig.model_validate({**settings, **fields})


def fail_first(call: Call) -> Reply:
    """Every third prompt is refused with a 503 the first time it arrives."""
    number = int(call.prompt.split()[-1])
    if number % 3 == 0 and call.attempt == 1:
        return Reply(status=503, body=b'{"error": "busy"}')
    return Reply(text=f"echo: {call.prompt}")


def test_text_bodies_are_encoded_ahead_once_each_retries_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with OpenAIStub(fail_first, latency_s=0.005) as stub:
        backend = OpenAIBackend(config(stub.base_url))
        encoded: list[tuple[str, int]] = []
        encode = openai_prepared.encode

        def counting(request: Request, *args: Any) -> Prepared:
            slots = backend._slots
            encoded.append((request.turns[-1].parts[-1].text, slots.in_flight if slots else 0))  # type: ignore[union-attr]
            return encode(request, *args)

        monkeypatch.setattr(openai_prepared, "encode", counting)
        with backend:
            responses = backend.generate([user_request(f"question {i}") for i in range(30)])
    assert [r.text for r in responses] == [f"echo: question {i}" for i in range(30)]
    assert [r.attempts for r in responses] == [2 if i % 3 == 0 else 1 for i in range(30)]
    assert sorted(text for text, _ in encoded) == sorted(f"question {i}" for i in range(30))
    # all of them before the first request was in flight
    assert all(in_flight == 0 for _, in_flight in encoded)
    assert backend.stats["retries"] == 10
    assert stub.max_in_flight == 3


def test_one_worker_per_slot_only_for_text_requests_in_bursts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From 16 in flight text requests are served by a worker per slot; with images, or
    fewer in flight, by a task per request (image bodies are encoded ahead while waiting)."""
    sizes: list[int] = []
    real = openai_compat.answer_each

    async def spy(items: Any, answer: Any, size: int) -> None:
        sizes.append(size)
        await real(items, answer, size)

    monkeypatch.setattr(openai_compat, "answer_each", spy)
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    with OpenAIStub() as stub:
        for concurrency, images in ((16, ()), (16, (buffer.getvalue(),)), (4, ())):
            with OpenAIBackend(config(stub.base_url, concurrency=concurrency)) as backend:
                asked = [user_request(*images, f"question {i}") for i in range(40)]
                assert all(r.ok for r in backend.generate(asked))
    assert sizes == [16, 40, 40]


def test_each_request_lists_its_images_once_on_the_way_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Request.images` walks every part: a text request's path lists them once, an image
    request's twice (the count, then the image budget that fits them)."""
    reads: list[str] = []
    listed = Request.images.fget  # type: ignore[attr-defined]

    def counting(request: Request) -> Any:
        reads.append(request.turns[-1].parts[-1].text)  # type: ignore[union-attr]
        return listed(request)

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    with OpenAIStub() as stub:
        for concurrency, images in ((16, ()), (4, ()), (4, (buffer.getvalue(),))):
            asked = [user_request(*images, f"question {i}") for i in range(20)]
            with OpenAIBackend(config(stub.base_url, concurrency=concurrency)) as backend:
                monkeypatch.setattr(Request, "images", property(counting))
                assert all(r.ok for r in backend.generate(asked))
                monkeypatch.undo()
            expected = 2 if images else 1
            assert sorted(reads) == sorted(
                f"question {i}" for i in range(20) for _ in range(expected)
            )
            reads.clear()
