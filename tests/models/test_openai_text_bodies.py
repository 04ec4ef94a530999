"""Bodies without images are encoded once each, in one pass before any request is sent.

They skip the room where image bodies wait encoded for a slot (`_answer_with_retries`): text
bodies are small, and the runner hands an API backend at most `commit_every` requests per call,
so holding them all is bounded. A retry must resend the bytes encoded the first time.
"""

from __future__ import annotations

from typing import Any

from tests.servers import Call, OpenAIStub, Reply
from vlmscope.config import OpenAIModelConfig
from vlmscope.messages import Request, user_request
from vlmscope.models.openai_compat import OpenAIBackend, _Prepared


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


def test_text_bodies_are_encoded_ahead_once_each_retries_included() -> None:
    with OpenAIStub(fail_first, latency_s=0.005) as stub:
        backend = OpenAIBackend(config(stub.base_url))
        encoded: list[tuple[str, int]] = []
        encode = backend._encode

        def counting(request: Request) -> _Prepared:
            slots = backend._slots
            encoded.append((request.turns[-1].parts[-1].text, slots.in_flight if slots else 0))  # type: ignore[union-attr]
            return encode(request)

        backend._encode = counting  # type: ignore[method-assign]
        with backend:
            responses = backend.generate([user_request(f"question {i}") for i in range(30)])
    assert [r.text for r in responses] == [f"echo: question {i}" for i in range(30)]
    assert [r.attempts for r in responses] == [2 if i % 3 == 0 else 1 for i in range(30)]
    assert sorted(text for text, _ in encoded) == sorted(f"question {i}" for i in range(30))
    # all of them before the first request was in flight
    assert all(in_flight == 0 for _, in_flight in encoded)
    assert backend.stats["retries"] == 10
    assert stub.max_in_flight == 3
