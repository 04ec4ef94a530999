"""Encoding ahead of the device (`hf_prefetch`) and prefill groups (`hf_groups`): the answers
are those of encoding on the calling thread, an encoder that raises fails only its request (and
says which), and the engine decodes what it holds while the next group is being encoded."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.models.helpers import backend, mixed_requests
from vlmscope.messages import ImagePart, Request, Response, Status, user_request
from vlmscope.models import hf, hf_decode, hf_inputs, hf_prefillers
from vlmscope.models.hf import HFBackend
from vlmscope.models.hf_engine_types import Done
from vlmscope.models.hf_groups import prefill_groups
from vlmscope.models.hf_prefill import Job


def encoding(path: Path, batch_size: int, *, workers: int) -> HFBackend:
    """A tiny model's backend encoding on `workers` threads (0: on the calling thread)."""
    return HFBackend(backend(path, batch_size).config, encode_workers=workers)


def answers(responses: list[Response]) -> list[tuple[str, int, int]]:
    return [(r.text, r.usage.prompt_tokens, r.usage.completion_tokens) for r in responses]


def encoding_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that encode groups, as they encode them."""
    names: list[str] = []
    real = hf_inputs.Encoder.prepare_group

    def prepare_group(self: Any, requests: Any) -> Any:
        names.append(threading.current_thread().name)
        return real(self, requests)

    monkeypatch.setattr(hf_inputs.Encoder, "prepare_group", prepare_group)
    return names


@pytest.mark.parametrize("arch", ["llava", "idefics3"])
def test_encoding_ahead_gives_the_answers_of_encoding_inline(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, arch: str
) -> None:
    requests = mixed_requests(12)
    threads = encoding_threads(monkeypatch)
    inline = encoding(tiny_dirs[arch], 4, workers=0).generate(requests)
    assert threads and set(threads) == {threading.current_thread().name}
    threads.clear()
    ahead = encoding(tiny_dirs[arch], 4, workers=2).generate(requests)
    assert threads and all(name.startswith("vlmscope-encode") for name in threads)
    assert all(r.ok for r in inline), [r.error for r in inline]
    assert answers(ahead) == answers(inline)
    one_by_one = encoding(tiny_dirs[arch], 1, workers=0).generate(requests)
    assert answers(ahead) == answers(one_by_one)  # float32: groups change no answer


def test_an_encoder_error_fails_only_its_request_names_it_and_does_not_hang(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(8)
    reference = encoding(tiny_dirs["llava"], 4, workers=0).generate(requests)
    real = hf_inputs.Encoder.prepare_group

    def prepare_group(self: Any, group: list[tuple[Request, int]]) -> Any:
        if any(request is requests[5] for request, _ in group):
            raise RuntimeError("image processor crashed")  # a bug, not a bad request
        return real(self, group)

    monkeypatch.setattr(hf_inputs.Encoder, "prepare_group", prepare_group)
    broken = user_request(ImagePart(b"not an image", name="broken.png"), "What is this?")
    got: list[Response] = []
    worker = threading.Thread(
        target=lambda: got.extend(
            encoding(tiny_dirs["llava"], 4, workers=2).generate([*requests, broken])
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "the engine hung on an encoder error"
    assert got[5].status is Status.REQUEST_FAILED
    assert got[5].error == "request 5 could not be encoded: RuntimeError: image processor crashed"
    assert got[8].status is Status.REQUEST_FAILED
    assert got[8].error is not None and "image 1 (broken.png) cannot be read" in got[8].error
    assert answers(got[:5] + got[6:8]) == answers(reference[:5] + reference[6:])


def test_the_engine_decodes_while_the_next_group_is_being_encoded(
    tiny_dirs: dict[str, Path],
) -> None:
    slots = encoding(tiny_dirs["llava"], 4, workers=0)
    requests = mixed_requests(2)
    reference = slots.generate(requests)
    loaded = slots._load()
    engine = slots._engine
    assert engine is not None
    prepared = [loaded.encoder.prepare(request, slots._limit(request)) for request in requests]
    steps_before_second: list[int] = []

    def jobs() -> Iterator[Job | None]:
        first, second = (p for p in prepared if not isinstance(p, Response))
        yield Job(0, first.inputs, first.max_new_tokens, first.prompt_tokens)
        for _ in range(4):
            yield None  # the second group is not encoded yet
        steps_before_second.append(engine.stats.steps)
        yield Job(1, second.inputs, second.max_new_tokens, second.prompt_tokens)

    tokens: dict[int, list[int]] = {}

    def finished(done: list[Done]) -> None:
        tokens.update({d.key: d.tokens for d in done})

    engine.stats.steps = 0
    engine.run(jobs(), finished, lambda job, err: pytest.fail(f"{job.key} failed: {err}"))
    # the first "not yet" ends the first group; each later one is a decode step, not a wait
    assert steps_before_second == [3]
    texts = [
        hf._response(loaded, item, tokens[key], 0.0).text
        for key, item in enumerate(prepared)
        if not isinstance(item, Response)
    ]
    assert texts == [r.text for r in reference]


def test_prefill_groups_sort_by_size_within_windows_and_respect_both_budgets() -> None:
    image = ImagePart(b"", name="x.png")
    requests = [
        user_request(*[image] * count, "q" * length)
        for count, length in [(3, 5), (0, 9), (1, 2), (0, 1), (3, 1), (2, 7), (0, 4)]
    ]
    assert prefill_groups(requests, rows=3, images=4, window=7) == [
        [3],  # the very first group: a quarter of the rows (at least one)
        [6, 1, 2],  # no images, shortest text first, then 1 image
        [5],  # 2 images; with the next 3 they would be 5 > 4
        [4],
        [0],
    ]
    # windows of 3 keep request order between them; a request over the image budget goes alone
    assert prefill_groups(requests, rows=8, images=2, window=3) == [[1, 2], [0], [3, 5], [4], [6]]
    flat = sorted(i for g in prefill_groups(requests, 2, 1, 4) for i in g)
    assert flat == list(range(len(requests)))


def test_capturing_the_step_when_the_cache_grows_leaves_running_requests_intact(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU the cache grows (and the decode step is captured again) while requests run;
    the capture's warm-up steps must not disturb them. Here the warm-up runs eagerly on the
    CPU and then the capture fails, as it would without CUDA."""
    requests = [  # prompts from ~20 to ~1,000 tokens: the cache grows several times
        user_request(*mixed_requests(4)[i % 4].images, f"Question {i}:" + " red blue" * 40 * i)
        for i in range(10)
    ]
    reference = encoding(tiny_dirs["llava"], 1, workers=0).generate(requests)
    slots = encoding(tiny_dirs["llava"], 4, workers=0)
    slots.config = slots.config.model_copy(update={"prefill_batch": 1})

    def record(self: Any, cache: Any) -> Any:
        for _ in range(2):
            self._step(cache)
        raise RuntimeError("no CUDA here")

    monkeypatch.setattr(hf_decode.DecodeEngine, "_wants_graph", lambda self: True)
    monkeypatch.setattr(hf_decode.DecodeEngine, "_record", record)
    got = slots.generate(requests)
    stats = slots.engine_stats
    assert stats is not None and stats.grows >= 3  # grown while requests were running
    # every cache size was captured once; its time is counted apart from placing
    assert stats.captures == stats.grows and stats.capture_s > 0 and stats.place_s > 0
    cache = slots._engine.cache if slots._engine is not None else None
    assert cache is not None and 0 < stats.cache_bytes_read <= stats.steps * cache.nbytes
    assert any("CUDA graph capture failed (no CUDA here)" in n for n in slots.batching_notes)
    assert answers(got) == answers(reference)


def test_a_group_over_the_token_budget_is_encoded_again_in_halves(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(12)
    reference = encoding(tiny_dirs["llava"], 1, workers=0).generate(requests)
    shapes: list[tuple[int, int]] = []  # (rows, width) of each prefill pass
    real = hf_prefillers.prefill

    def prefill(model: Any, jobs: list[Job]) -> Any:
        shapes.append(tuple(jobs[0].inputs["attention_mask"].shape))
        return real(model, jobs)

    monkeypatch.setattr(hf_prefillers, "prefill", prefill)
    roomy = encoding(tiny_dirs["llava"], 8, workers=2)
    assert answers(roomy.generate(requests)) == answers(reference)
    widest = max(rows * width for rows, width in shapes)
    assert max(rows for rows, _ in shapes) > 2 and widest > 150
    roomy_passes, shapes[:] = len(shapes), []
    tight = encoding(tiny_dirs["llava"], 8, workers=2)
    tight.config = tight.config.model_copy(update={"prefill_tokens": 150})
    assert answers(tight.generate(requests)) == answers(reference)
    assert all(rows * width <= 150 or rows == 1 for rows, width in shapes), shapes
    assert sum(rows for rows, _ in shapes) == len(requests)  # each request prefilled once
    assert len(shapes) > roomy_passes
