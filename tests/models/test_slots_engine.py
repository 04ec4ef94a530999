"""The slots engine of the `hf` backend: failures cost only what they must, answers are handed
back as they finish, and the slot cache keeps every sequence intact through shifts and growth."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.models.helpers import OutOfMemoryError, backend, mixed_requests, patch_forward
from vlmscope.messages import ImagePart, Response, Status, user_request
from vlmscope.models import hf, hf_prefillers
from vlmscope.models.hf_slots import SlotCache


def answers(responses: list[Response]) -> list[tuple[str, int, int]]:
    return [(r.text, r.usage.prompt_tokens, r.usage.completion_tokens) for r in responses]


def test_a_failed_group_is_prefilled_again_alone_and_only_the_bad_request_fails(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(6)
    reference = backend(tiny_dirs["idefics3"], engine="generate").generate(requests)
    slots = backend(tiny_dirs["idefics3"], prefill_batch=3)
    broken = user_request(ImagePart(b"not an image", name="broken.png"), "What is this?")
    got = slots.generate([*requests[:3], broken, *requests[3:]])
    assert got[3].status is Status.REQUEST_FAILED and got[3].error
    assert answers(got[:3] + got[4:]) == answers(reference)

    model = slots._load().model
    image_token = model.config.image_token_id

    def three_images(ids: torch.Tensor) -> Exception | None:
        return RuntimeError("boom") if int((ids == image_token).sum(1).max()) >= 60 else None

    patch_forward(monkeypatch, model, three_images)
    got = slots.generate(requests)
    assert [r.status for r in got] == [Status.OK] * 3 + [Status.REQUEST_FAILED] + [Status.OK] * 2
    assert got[3].error == "RuntimeError: boom"
    assert answers(got[:3] + got[4:]) == answers(reference[:3] + reference[4:])


def test_out_of_memory_in_a_decode_step_halves_the_slots(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(12)
    reference = backend(tiny_dirs["llava"], batch_size=1).generate(requests)
    slots = backend(tiny_dirs["llava"], batch_size=8)

    def oom(ids: torch.Tensor) -> Exception | None:  # a decode step over more than 2 slots
        decoding = ids.shape == (len(ids), 1)
        return OutOfMemoryError("CUDA out of memory") if decoding and len(ids) > 2 else None

    patch_forward(monkeypatch, slots._load().model, oom)
    assert answers(slots.generate(requests)) == answers(reference)
    assert slots.batching_notes == [
        "out of device memory: batches of at most 2 since (2 failed batches)"
    ]
    assert (
        slots.engine_stats is not None
        and slots.engine_stats.busy_slots <= 2 * slots.engine_stats.steps
    )


def test_each_finished_answer_is_committed_before_the_next_prefill(
    tiny_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.models.test_families import colours_config
    from vlmscope.runner.loop import run

    out = tmp_path / "out"
    built = 0  # answers handed to the runner so far
    seen: list[tuple[int, int]] = []  # (answers handed back, rows in the cache) at each prefill
    real_response, real_prefill = hf._response, hf_prefillers.prefill

    def response(*args: Any) -> Response:
        nonlocal built
        built += 1
        return real_response(*args)

    def prefill(model: Any, jobs: list[Any]) -> Any:
        with sqlite3.connect(out / "cache.sqlite") as conn:
            seen.append((built, conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]))
        return real_prefill(model, jobs)

    monkeypatch.setattr(hf, "_response", response)
    monkeypatch.setattr(hf_prefillers, "prefill", prefill)
    report = run(colours_config(tiny_dirs["llava"], out, n_samples=12, prefill_batch=1))
    assert report.tracks[0].generated == 12
    assert len(seen) == 12 and seen[-1][0] > 0
    assert all(handed == rows for handed, rows in seen)  # nothing answered sits uncommitted


def test_the_slot_cache_keeps_every_sequence_through_shifts_and_growth() -> None:
    generator = torch.Generator().manual_seed(0)
    own = [torch.randn(1, 2, n, 4, generator=generator) for n in (5, 3)]
    cache = SlotCache.like([(own[0], own[0])], slots=2, capacity=16)
    cache.shift(6)
    cache.place(0, [(own[0], own[0] + 1)])
    cache.shift(2)  # room for a longer prompt, keeping slot 0 where it ends
    cache.place(1, [(own[1], own[1] + 1)])

    def held(slot: int, length: int) -> torch.Tensor:
        columns = cache.mask[slot, 0, 0].nonzero().flatten()
        assert columns.tolist() == list(range(cache.column - length, cache.column))
        return cache.keys[0][slot, :, columns]

    for step in ("placed", "shifted left", "grown"):
        assert torch.equal(held(0, 5), own[0][0]) and torch.equal(held(1, 3), own[1][0]), step
        assert torch.equal(cache.values[0][0, :, cache.column - 5 : cache.column], own[0][0] + 1)
        if step == "placed":
            cache.shift(-3)
        elif step == "shifted left":
            cache.grow(40)
    assert cache.capacity == 40 and cache.column == 5 and int(cache.write_at) == 5
    # one layer's keys and values over 2 slots, 2 heads, 40 columns, 4 dims, float32
    assert cache.nbytes == 2 * (2 * 2 * 40 * 4) * 4
    with pytest.raises(ValueError, match="cannot shift column 5 by -6"):
        cache.shift(-6)
