"""Every tiny family through the hf backend: offline load, own chat template, batch invariance,
image budget; and the runner's batching (sorted across batches, committed batch by batch, a
fallback that the summary reports).

Families whose processor needs torchvision are skipped where torchvision does not import (the
default CI install has it: scripts/install.sh pairs torch with a torchvision that works).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pytest

from tests.models.helpers import OutOfMemoryError, backend, mixed_requests, png
from vlmscope.config import HFModelConfig, RunConfig
from vlmscope.hub_export import load_folder
from vlmscope.messages import GenerationParams, Request, Response, cache_key, user_request
from vlmscope.models import hf, hf_inputs
from vlmscope.models.images import limit_images
from vlmscope.models.tiny import TINY_ARCHS, build_tiny_model, needs_torchvision, torchvision_works
from vlmscope.runner.loop import run
from vlmscope.runner.results import result_dir
from vlmscope.runner.table import format_table

TORCHVISION = torchvision_works()

# model class, and what only this family's chat template writes for a system + image + text turn
EXPECTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "llava": ("LlavaForConditionalGeneration", ("<|im_start|>system\n", "<image>")),
    "llava_thinking": (
        "LlavaForConditionalGeneration",
        ("<|im_start|>system\n", "<|im_end|>\n<|im_start|>assistant\n<think>\n"),
    ),
    "idefics3": ("Idefics3ForConditionalGeneration", ("<|im_start|>user\n", "<image>")),
    "smolvlm": ("SmolVLMForConditionalGeneration", ("User:<image>", "<end_of_utterance>\n")),
    "qwen2_5_vl": (
        "Qwen2_5_VLForConditionalGeneration",
        ("<|vision_start|><|image_pad|><|vision_end|>", "<|im_start|>assistant\n"),
    ),
    "qwen3_vl": (
        "Qwen3VLForConditionalGeneration",
        ("<|vision_start|><|image_pad|><|vision_end|>", "<|im_start|>assistant\n"),
    ),
    "llava_onevision": (
        "LlavaOnevisionForConditionalGeneration",
        ("<|im_start|>user\n<image>", "<|im_start|>assistant\n"),
    ),
    "gemma3": (
        "Gemma3ForConditionalGeneration",
        ("<start_of_turn>user\nBe brief.\n\n<start_of_image>", "<start_of_turn>model\n"),
    ),
    "internvl": ("InternVLForConditionalGeneration", ("<IMG_CONTEXT>", "<|im_end|>\n")),
    "mistral3": (
        "Mistral3ForConditionalGeneration",
        ("[SYSTEM_PROMPT]Be brief.[/SYSTEM_PROMPT][INST][IMG]", "[/INST]"),
    ),
}


def test_the_config_and_the_tests_name_every_family() -> None:
    literal, _ = get_args(HFModelConfig.model_fields["tiny_arch"].annotation)
    assert get_args(literal) == TINY_ARCHS
    assert set(EXPECTED) == set(TINY_ARCHS)


@pytest.fixture(scope="session")
def family_dir(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The family's tiny model, built on first use (skipped without torchvision if it needs it)."""
    built: dict[str, Path] = {}

    def get(arch: str) -> Path:
        if needs_torchvision(arch) and not TORCHVISION:  # type: ignore[arg-type]
            pytest.skip(f"{arch}: its processor needs torchvision, which does not import here")
        if arch not in built:
            path = tmp_path_factory.mktemp("families") / arch
            build_tiny_model(path, arch)  # type: ignore[arg-type]
            built[arch] = path
        return built[arch]

    return get


def answers(responses: list[Response]) -> list[tuple[str, int, int, tuple[str, ...]]]:
    return [
        (r.text, r.usage.prompt_tokens, r.usage.completion_tokens, r.image_notes) for r in responses
    ]


def family_requests() -> list[Request]:
    """Mixed lengths and 0-3 images of different sizes and aspect ratios, plus two requests
    with several images of very different shapes."""
    shapes = user_request(
        png(70, 20, 1), "Compare", png(24, 64, 2), png(48, 48, 3), "these.",
        params=GenerationParams(max_new_tokens=7),
    )  # fmt: skip
    wide = user_request(png(90, 30, 4), png(16, 16, 5), "Which is larger?", system="Be brief.")
    return [*mixed_requests(10), shapes, wide]


@pytest.mark.parametrize("arch", TINY_ARCHS)
def test_loads_offline_with_its_own_chat_template(
    family_dir: Callable[[str], Path], arch: str
) -> None:
    loaded = backend(family_dir(arch))._load()  # AutoProcessor + AutoModelForImageTextToText
    model_class, markers = EXPECTED[arch]
    assert type(loaded.model).__name__ == model_class
    assert loaded.processor.tokenizer.padding_side == "left"
    assert loaded.model.generation_config.pad_token_id == loaded.pad_id is not None
    request = user_request(png(20, 20, 0), "What is it?", system="Be brief.")
    prompt, images = loaded.encoder.prompt_and_images(request)
    assert len(images) == 1 and "What is it?" in prompt and "Be brief." in prompt
    for marker in markers:
        assert marker in prompt, (marker, prompt)
    from transformers import AutoProcessor

    plain = AutoProcessor.from_pretrained(family_dir(arch))  # as a user would, no options
    assert type(plain) is type(loaded.processor)
    messages = hf_inputs.chat_messages(request)
    assert plain.apply_chat_template(messages, add_generation_prompt=True, tokenize=False) == prompt


@pytest.mark.parametrize("arch", TINY_ARCHS)
def test_batched_answers_equal_one_at_a_time(family_dir: Callable[[str], Path], arch: str) -> None:
    requests = family_requests()
    alone = backend(family_dir(arch), batch_size=1)
    reference = [alone.generate([request])[0] for request in requests]
    assert all(r.ok and r.usage.completion_tokens > 0 for r in reference), [
        r.error for r in reference
    ]
    assert len({r.usage.prompt_tokens for r in reference}) >= 8  # lengths really differ
    for batch_size in (8, 3):
        batched = alone.with_batch_size(batch_size)
        assert answers(batched.generate(requests)) == answers(reference)
        if arch == "gemma3":  # sliding-window layers: the generate engine answers, and says so
            (note,) = batched.batching_notes
            assert note.startswith("slots engine cannot hold gemma3 (cache layers of kind")
        else:
            assert batched.batching_notes == []  # multi-image requests batch in every family
        assert batched.identity == alone.identity  # same cache keys whatever the batch size
        assert cache_key(batched.identity, requests[0]) == cache_key(alone.identity, requests[0])


@pytest.mark.parametrize("arch", TINY_ARCHS)
def test_the_slots_engine_answers_as_generate_does(
    family_dir: Callable[[str], Path], arch: str
) -> None:
    """In float32 the slots engine (requests prefilled in groups or alone, decoded in slots of
    different counts, attending densely or over each slot's blocks, prefilled inline or on a
    worker thread) gives transformers' `generate` answers, family by family."""
    requests = family_requests()
    reference = backend(family_dir(arch), batch_size=4, engine="generate").generate(requests)
    for fields in (
        {"batch_size": 8, "prefill_batch": 8},
        {"batch_size": 3, "prefill_batch": 1},
        {"batch_size": 5, "decode_attention": "blocks"},
        {"batch_size": 4, "prefill_batch": 2, "overlap_prefill": True},
    ):
        slots = backend(family_dir(arch), **fields)
        assert answers(slots.generate(requests)) == answers(reference), (fields, arch)
        stats = slots.engine_stats
        if arch == "gemma3":  # sliding-window layers: the slots engine hands over to generate
            assert stats is None or stats.steps == 0
        else:
            assert stats is not None and stats.prefills >= len(requests) and stats.steps > 0


@pytest.mark.parametrize("arch", TINY_ARCHS)
def test_image_budget_and_side_cap(family_dir: Callable[[str], Path], arch: str) -> None:
    """Over the budget the last images stay; a side over 1000 px is scaled down to 1000."""
    images = [png(40, 40, 1), png(30, 50, 2), png(1200, 300, 3)]
    request = user_request(*images, "Describe the last one.")
    budget = {"max_images": 2, "max_side": 1000}
    (response,) = backend(family_dir(arch), image_budget=budget).generate([request])
    assert response.ok, response.error
    assert response.image_notes == (
        "dropped image 1 of 3",
        "resized image 3 from 1200x300 to 1000x250",
    )
    fitted, _ = limit_images(request, 2, 1000)
    (expected,) = backend(family_dir(arch), image_budget={"max_images": 8}).generate([fitted])
    assert (response.text, response.usage) == (expected.text, expected.usage)


# --- fallback: a family that cannot batch multi-image requests --------------------------------


def refuse_multi_image_batches(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """Make every batch of more than one request that holds a multi-image request fail, as a
    family without batched multi-image support would; returns the image counts of each batch
    that ran."""
    real = hf._run_batch
    ran: list[list[int]] = []

    def run_batch(loaded: Any, items: list[Any]) -> list[Response]:
        counts = [len(i.images) for i in items]
        if len(items) > 1 and max(counts) > 1:
            raise RuntimeError("multi-image batches are not supported")
        ran.append(counts)
        return real(loaded, items)

    monkeypatch.setattr(hf, "_run_batch", run_batch)
    return ran


def test_a_family_that_cannot_batch_multi_image_falls_back(
    family_dir: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(16)
    reference = backend(family_dir("llava"), batch_size=1).generate(requests)
    ran = refuse_multi_image_batches(monkeypatch)
    hf_backend = backend(family_dir("llava"), batch_size=4, engine="generate")
    assert answers(hf_backend.generate(requests)) == answers(reference)
    (note,) = hf_backend.batching_notes
    assert note.startswith("llava failed on a batch holding multi-image requests")
    assert "multi-image requests go one at a time" in note
    assert any(len(batch) > 1 for batch in ran)  # single-image requests still batched
    ran.clear()
    assert answers(hf_backend.generate(requests)) == answers(reference)
    assert all(len(batch) == 1 for batch in ran if max(batch) > 1)  # learned: no failures
    assert hf_backend.batching_notes == [note]


def test_out_of_memory_shrinks_later_batches(
    family_dir: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = hf._run_batch
    sizes: list[int] = []

    def run_batch(loaded: Any, items: list[Any]) -> list[Response]:
        if len(items) > 2:
            raise OutOfMemoryError("CUDA out of memory")
        sizes.append(len(items))
        return real(loaded, items)

    requests = mixed_requests(16)
    reference = backend(family_dir("llava"), batch_size=1).generate(requests)
    monkeypatch.setattr(hf, "_run_batch", run_batch)
    hf_backend = backend(family_dir("llava"), batch_size=8, engine="generate")
    assert answers(hf_backend.generate(requests)) == answers(reference)
    assert any("batches of at most 2 since" in n for n in hf_backend.batching_notes)
    sizes.clear()
    hf_backend.generate(requests)
    assert sizes == [2] * 8  # no batch over 2 is even tried again


# --- the runner: a sort window of several batches, each committed before the next ------------


def colours_config(model_dir: Path, out: Path, n_samples: int = 18, **model: Any) -> RunConfig:
    return RunConfig.model_validate(
        {
            "output_dir": str(out),
            "models": [
                {
                    "backend": "hf",
                    "name": "tiny",
                    "path": str(model_dir),
                    "batch_size": 2,
                    "max_new_tokens": 4,
                    **model,
                }  # fmt: skip
            ],
            "tracks": [
                {"name": "colours", "options": {"n_samples": n_samples, "max_new_tokens": 4}}
            ],
        }
    )


def test_runner_sorts_across_batches_and_commits_each_before_the_next(
    family_dir: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = hf._run_batch
    out = tmp_path / "out"
    seen: list[tuple[int, list[int]]] = []  # (rows in the cache, prompt lengths) per batch

    def run_batch(loaded: Any, items: list[Any]) -> list[Response]:
        with sqlite3.connect(out / "cache.sqlite") as conn:
            rows = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        seen.append((rows, [i.prompt_tokens for i in items]))
        return real(loaded, items)

    monkeypatch.setattr(hf, "_run_batch", run_batch)
    config = colours_config(family_dir("llava"), out, n_samples=12, engine="generate")
    report = run(config)  # 12 distinct requests
    assert report.tracks[0].generated == 12 and report.tracks[0].batching == []
    assert [rows for rows, _ in seen] == list(range(0, 12, 2))  # each batch committed first
    lengths = [n for _, batch in seen for n in batch]
    assert lengths == sorted(lengths)  # one window of 8 batches: sorted across all of them


def test_the_summary_shows_a_batching_fallback(
    family_dir: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = run(colours_config(family_dir("llava"), tmp_path / "ref"))
    ran = refuse_multi_image_batches(monkeypatch)
    out = tmp_path / "out"
    report = run(colours_config(family_dir("llava"), out, batch_size=4, engine="generate"))
    assert any(len(batch) > 1 for batch in ran)
    (note,) = report.tracks[0].batching
    assert "multi-image requests go one at a time" in note
    assert "batching fell back: llava failed on a batch" in format_table(report)
    summary = load_folder(result_dir(out, "tiny", "colours"), "summary")[0]["scores"]
    assert summary["generation"]["batching_fallback"] == [note]
    ref_summary = load_folder(result_dir(tmp_path / "ref", "tiny", "colours"), "summary")[0]
    assert "batching_fallback" not in ref_summary["scores"]["generation"]
    details = {
        folder: {
            r["sample_id"]: r["response"]
            for r in load_folder(result_dir(folder, "tiny", "colours"), "details")
        }
        for folder in (tmp_path / "ref", out)
    }
    assert details[out] == details[tmp_path / "ref"]  # the same answers, batched or not
    assert reference.tracks[0].generated == report.tracks[0].generated == 18
