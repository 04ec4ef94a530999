"""OpenAIBackend against a real OpenAI-compatible server: `transformers serve` on a tiny Llava.

The stub tests pin down retries and faults; this one shows the requests we build are ones a
real server accepts (minimal body, data-URL images, system message) and that what comes back is
read correctly. The tiny model's answers are noise, so the assertions are on shape and usage:
each image must add the model's 16 image tokens to the prompt, which only happens if the server
really decoded it and ran it through the processor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests.models.helpers import png
from tests.servers import Served, tiny_llava_served
from vlmscope.config import OpenAIModelConfig
from vlmscope.messages import GenerationParams, user_request
from vlmscope.models.openai_compat import OpenAIBackend

QUESTION = "What colour is object 3?"
TOKENS_PER_IMAGE = 16  # tiny Llava: 32 px tiles of 8 px patches


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with tiny_llava_served(tmp_path_factory) as server:
        yield server


@pytest.fixture(scope="module")
def backend(served: Served) -> Iterator[OpenAIBackend]:
    config = OpenAIModelConfig(
        backend="openai", name="tiny-served", base_url=served.base_url,
        model=served.model,
        max_new_tokens=6, concurrency=2, timeout_s=120, max_retries=1,
    )  # fmt: skip
    with OpenAIBackend(config) as opened:
        yield opened


def test_text_and_images_are_answered_with_usage(backend: OpenAIBackend) -> None:
    requests = [
        user_request(QUESTION),
        user_request(png(32, 32, seed=1), QUESTION),
        user_request(png(32, 32, seed=1), png(48, 24, seed=2), QUESTION),
        user_request(QUESTION, system="Answer with one word."),
    ]
    responses = backend.generate(requests)
    assert [r.error for r in responses] == [None] * 4
    assert all(r.ok and r.attempts == 1 and r.latency_s > 0 for r in responses)
    assert all(1 <= r.usage.completion_tokens <= 6 for r in responses)  # capped by the config
    text_only, one_image, two_images, with_system = (r.usage.prompt_tokens for r in responses)
    assert text_only > 0
    assert one_image - text_only == TOKENS_PER_IMAGE
    assert two_images - text_only == 2 * TOKENS_PER_IMAGE
    assert with_system > text_only  # the system message reached the chat template
    assert backend.stats["ok"] == 4 and backend.stats["retries"] == 0


def test_request_limit_below_the_cap_and_judge_calls(backend: OpenAIBackend) -> None:
    short = user_request(QUESTION, params=GenerationParams(max_new_tokens=2))

    async def judge_twice() -> list[int]:
        answers = await asyncio.gather(backend.agenerate(short), backend.agenerate(short))
        assert all(a.ok for a in answers)
        return [a.usage.completion_tokens for a in answers]

    assert all(1 <= tokens <= 2 for tokens in asyncio.run(judge_twice()))


def test_a_model_the_server_does_not_serve_fails_without_retries(
    served: Served,
) -> None:
    base_url = served.base_url
    config = OpenAIModelConfig(backend="openai", name="wrong", base_url=base_url, model="judge")
    with OpenAIBackend(config) as wrong:
        (response,) = wrong.generate([user_request(QUESTION)])
    assert not response.ok and response.attempts == 1
    assert response.error is not None and "judge" in response.error
