import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.models.helpers import backend, mixed_requests, png
from vlmscope.messages import GenerationParams, ImagePart, Response, Status, user_request
from vlmscope.models.hf import HFBackend
from vlmscope.models.hf_reference import completion as _completion


def answers(responses: list[Response]) -> list[tuple[str, int, int]]:
    return [(r.text, r.usage.prompt_tokens, r.usage.completion_tokens) for r in responses]


@pytest.mark.parametrize("arch", ["llava", "idefics3"])
def test_batch_size_does_not_change_answers(tiny_dirs: dict[str, Path], arch: str) -> None:
    requests = mixed_requests(12)
    alone = backend(tiny_dirs[arch], batch_size=1)
    reference = [alone.generate([request])[0] for request in requests]
    assert all(r.ok and r.text for r in reference)
    assert len({r.usage.prompt_tokens for r in reference}) >= 8  # lengths really differ
    for batch_size in (8, 5):
        batched = backend(tiny_dirs[arch], batch_size=batch_size).generate(requests)
        assert answers(batched) == answers(reference)


def test_usage_counts_tokens_and_caps_new_tokens(tiny_dirs: dict[str, Path]) -> None:
    long = GenerationParams(max_new_tokens=500)
    short = GenerationParams(max_new_tokens=3)
    requests = [user_request("Describe.", params=long), user_request("Describe.", params=short)]
    capped, limited = backend(tiny_dirs["llava"], max_new_tokens=7).generate(requests)
    assert 0 < capped.usage.completion_tokens <= 7  # the config caps the request's 500
    assert 0 < limited.usage.completion_tokens <= 3
    assert capped.usage.prompt_tokens == limited.usage.prompt_tokens > 5
    with_image = backend(tiny_dirs["llava"]).generate([user_request(png(30, 30, 1), "Describe.")])
    assert with_image[0].usage.prompt_tokens == capped.usage.prompt_tokens + 16  # 16 per image
    assert all(r.latency_s > 0 for r in (capped, limited, with_image[0]))


def test_completion_stops_at_the_first_stop_token() -> None:
    assert _completion([5, 6, 2, 0, 0], 10, frozenset({2})) == [5, 6, 2]
    assert _completion([5, 6, 7, 8], 3, frozenset({2})) == [5, 6, 7]


def test_image_budget_is_applied_and_noted(tiny_dirs: dict[str, Path]) -> None:
    images = [png(20, 20, i) for i in range(4)] + [png(60, 30, 9)]
    request = user_request(*images, "Which is brightest?")
    budget = {"max_images": 2, "max_side": 32}
    (response,) = backend(tiny_dirs["llava"], image_budget=budget).generate([request])
    assert response.ok
    assert response.image_notes == (
        "dropped image 1 of 5",
        "dropped image 2 of 5",
        "dropped image 3 of 5",
        "resized image 5 from 60x30 to 32x16",
    )
    two_images = user_request(*images[3:], "Which is brightest?")
    (expected,) = backend(tiny_dirs["llava"]).generate([two_images])
    assert response.usage.prompt_tokens == expected.usage.prompt_tokens


def test_context_overflow_retries_with_half_the_images(tiny_dirs: dict[str, Path]) -> None:
    images = [png(20, 20, i) for i in range(8)]
    fits_with_four = user_request(*images, "Describe.")  # 8 x 16 image tokens > 128 positions
    too_long = user_request(*images[:2], "word " * 200)
    fine = user_request("Describe.")
    retried, failed, ok = backend(tiny_dirs["short"]).generate([fits_with_four, too_long, fine])
    assert retried.ok and retried.attempts == 2
    assert retried.image_notes[0].startswith("context overflow with 8 images (")
    assert retried.image_notes[0].endswith("retrying with 4")
    assert retried.image_notes[1:] == tuple(f"dropped image {n} of 8" for n in range(1, 5))
    assert failed.status is Status.CONTEXT_OVERFLOW and failed.attempts == 3
    assert "without images" in (failed.error or "")
    assert ok.ok and ok.image_notes == ()


@pytest.mark.parametrize("engine", ["generate", "slots"])
def test_overflow_error_from_the_model_is_retried(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """Models with learned positions fail inside the model (generate's call, or the slots
    engine's prefill); that too costs images, not the request."""
    hf = backend(tiny_dirs["llava"], engine=engine, prefill_batch=1)
    model = hf._load().model
    entry = "generate" if engine == "generate" else "forward"
    real = getattr(model, entry)

    def limited(*args: Any, **inputs: Any) -> Any:
        if inputs["input_ids"].shape[1] > 60:
            raise IndexError("index out of range in self")
        return real(*args, **inputs)

    monkeypatch.setattr(model, entry, limited)
    request = user_request(*[png(20, 20, i) for i in range(4)], "Describe.")
    (response,) = hf.generate([request])
    assert response.ok and response.attempts == 2
    assert response.image_notes[0] == (
        "context overflow with 4 images (index out of range in self); retrying with 2"
    )
    assert response.usage.prompt_tokens <= 60


def test_a_bad_request_fails_alone(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(6)
    reference = backend(tiny_dirs["idefics3"]).generate(requests)
    broken = user_request(ImagePart(b"not an image", name="broken.png"), "What is this?")
    hf = backend(tiny_dirs["idefics3"], engine="generate")
    got = hf.generate([*requests[:3], broken, *requests[3:]])
    assert got[3].status is Status.REQUEST_FAILED and "broken.png" not in (got[3].text or "")
    assert got[3].error
    assert answers(got[:3] + got[4:]) == answers(reference)

    model = hf._load().model
    real_generate = model.generate
    image_token = model.config.image_token_id

    def fails_on_three_images(**inputs: Any) -> Any:
        if int((inputs["input_ids"] == image_token).sum(dim=1).max()) >= 3 * 20:
            raise RuntimeError("boom")
        return real_generate(**inputs)

    monkeypatch.setattr(model, "generate", fails_on_three_images)
    got = hf.generate(requests)
    assert [r.status for r in got] == [Status.OK] * 3 + [Status.REQUEST_FAILED] + [Status.OK] * 2
    assert got[3].error == "RuntimeError: boom"
    assert answers(got[:3] + got[4:]) == answers(reference[:3] + reference[4:])


def test_progress_callback_sees_every_response_in_order(tiny_dirs: dict[str, Path]) -> None:
    requests = mixed_requests(9)
    chunks: list[list[Response]] = []
    hf = HFBackend(backend(tiny_dirs["llava"], batch_size=2).config, sort_window=4)
    got = hf.generate(requests, on_done=lambda chunk: chunks.append(list(chunk)))
    assert len(chunks) >= 3
    assert [r for chunk in chunks for r in chunk] == got


def test_agenerate_matches_generate(tiny_dirs: dict[str, Path]) -> None:
    hf = backend(tiny_dirs["llava"])
    request = mixed_requests(3)[2]
    assert asyncio.run(hf.agenerate(request)).text == hf.generate([request])[0].text


def test_identity_names_what_changes_answers(tiny_dirs: dict[str, Path]) -> None:
    base = backend(tiny_dirs["llava"]).identity
    assert base["path"] == str(tiny_dirs["llava"].resolve())
    assert backend(tiny_dirs["llava"], batch_size=1, device_map="cpu").identity == base
    for change in (
        {"dtype": "bfloat16"},
        {"max_new_tokens": 5},
        {"image_budget": {"max_images": 1}},
    ):
        assert backend(tiny_dirs["llava"], **change).identity != base
    hub = HFBackend(backend(tiny_dirs["llava"]).config.model_copy(update={"path": "org/model"}))
    assert hub.identity["path"] == "org/model"


def test_text_spelling_the_image_token_stays_text(tiny_dirs):
    """A judge prompt quoting a question with its `<image>` placeholder has one real image."""
    from vlmscope.config import HFModelConfig
    from vlmscope.messages import user_request
    from vlmscope.models.hf import HFBackend

    backend = HFBackend(
        HFModelConfig(backend="hf", name="t", path=str(tiny_dirs["llava"]), max_new_tokens=4)
    )
    from tests.models.helpers import png

    image = png(32, 32, 1)
    [response] = backend.generate(
        [user_request(image, "Question: Describe this image. <image> <image>")]
    )
    assert response.ok, response.error
