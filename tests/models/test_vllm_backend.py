"""VLLMBackend with a stand-in `vllm` module (vLLM needs a CUDA GPU, this machine has none).

The stand-in's `LLM.generate` answers from what it was given: it names the colour at the
centre of the last image (so the colour track scores the images that really reached it) and
counts prompt tokens as words plus 16 per image, refusing a prompt longer than its
`max_model_len` as vLLM does. What is tested is everything of ours around vLLM: the engine
arguments, the requests as vLLM receives them, answers in order, failures alone, context
overflow retries, the cache key, and a whole `vlmscope run` with its cache.
"""

from __future__ import annotations

import json
import re
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.colour_track import COLOURS, square_png
from vlmscope.config import ImageBudget, VLLMModelConfig, parse_config
from vlmscope.hub_export import load_folder
from vlmscope.messages import GenerationParams, Status, cache_key, user_request
from vlmscope.models import vllm_backend
from vlmscope.models.registry import build_backend, commit_every
from vlmscope.models.vllm_backend import INSTALL, VLLMBackend, VLLMUnavailable
from vlmscope.runner.results import result_dir


@dataclass
class SamplingParams:
    max_tokens: int = 16
    temperature: float = 1.0
    n: int = 1
    skip_special_tokens: bool = True
    top_p: float = 1.0
    top_k: int = 0
    seed: int | None = None
    stop: list[str] | None = None
    repetition_penalty: float = 1.0


@dataclass
class Completion:
    text: str
    token_ids: list[int]
    finish_reason: str = "stop"


@dataclass
class RequestOutput:
    prompt: str
    prompt_token_ids: list[int]
    outputs: list[Completion]


@dataclass
class FakeLLM:
    """Records its engine arguments and every generate call."""

    kwargs: dict[str, Any]
    calls: list[list[tuple[dict[str, Any], SamplingParams]]] = field(default_factory=list)

    @property
    def llm_engine(self) -> Any:
        limit = self.kwargs.get("max_model_len") or 4096
        return types.SimpleNamespace(model_config=types.SimpleNamespace(max_model_len=limit))

    def generate(
        self, prompts: list[dict[str, Any]], sampling_params: list[SamplingParams], **kw: Any
    ) -> list[RequestOutput]:
        assert kw == {"use_tqdm": False} and len(prompts) == len(sampling_params)
        self.calls.append(list(zip(prompts, sampling_params, strict=True)))
        limit = self.llm_engine.model_config.max_model_len
        outputs = []
        for prompt, params in zip(prompts, sampling_params, strict=True):
            images = prompt.get("multi_modal_data", {}).get("image", [])
            assert set(prompt) <= {"prompt", "multi_modal_data"}
            length = len(prompt["prompt"].split()) + 16 * len(images)
            if length > limit:
                raise ValueError(
                    f"The decoder prompt (length {length}) is longer than the maximum model "
                    f"length of {limit}. Make sure that `max_model_len` is no smaller than ..."
                )
            text = colour_of(images[-1]) if images else "none"
            outputs.append(
                RequestOutput(
                    prompt["prompt"],
                    list(range(length)),
                    [Completion(text, list(range(min(2, params.max_tokens))))],
                )
            )
        return outputs


def colour_of(image: Any) -> str:
    assert image.mode == "RGB"
    centre = image.getpixel((image.width // 2, image.height // 2))
    return min(
        COLOURS,
        key=lambda name: sum((a - b) ** 2 for a, b in zip(COLOURS[name], centre, strict=True)),
    )


class FakeVLLM(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("vllm")
        self.__version__ = "0.0-fake"
        self.engines: list[FakeLLM] = []
        self.SamplingParams = SamplingParams

    def LLM(self, **kwargs: Any) -> FakeLLM:  # noqa: N802 (vllm's name)
        engine = FakeLLM(kwargs)
        self.engines.append(engine)
        return engine


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeVLLM]:
    module = FakeVLLM()
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.setattr(vllm_backend, "gpu_count", lambda: 1)
    yield module


def config(path: Path, **fields: Any) -> VLLMModelConfig:
    return VLLMModelConfig.model_validate(
        {"backend": "vllm", "name": "fast", "path": str(path), **fields}
    )


def square(colour: str, size: int = 24) -> bytes:
    return square_png(COLOURS[colour], size)


def test_without_vllm_the_error_says_what_to_install(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # `import vllm` raises ImportError
    backend = build_backend(config(tiny_dirs["llava"]))
    assert backend.identity["backend"] == "vllm"  # building it loads nothing
    with pytest.raises(VLLMUnavailable, match="vLLM is not installed") as caught:
        backend.generate([user_request("hello")])
    assert INSTALL in str(caught.value) and INSTALL == "pip install 'vlmscope[vllm]'"


def test_without_a_gpu_the_error_says_so(
    tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vllm_backend, "gpu_count", lambda: 0)
    with pytest.raises(VLLMUnavailable, match="this machine has no GPU"):
        VLLMBackend(config(tiny_dirs["llava"])).generate([user_request("hello")])
    monkeypatch.setattr(vllm_backend, "gpu_count", lambda: 2)
    with pytest.raises(VLLMUnavailable, match="tensor_parallel_size=4.*2 GPU"):
        VLLMBackend(config(tiny_dirs["llava"], tensor_parallel_size=4)).generate(
            [user_request("hello")]
        )
    assert fake_vllm.engines == []


def test_engine_arguments_are_passed_through(
    tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM
) -> None:
    settings = {
        "revision": "main", "dtype": "bfloat16", "tensor_parallel_size": 1,
        "max_model_len": 2048, "gpu_memory_utilization": 0.5,
        "image_budget": {"max_images": 3}, "engine_args": {"enforce_eager": True},
    }  # fmt: skip
    VLLMBackend(config(tiny_dirs["llava"], **settings)).generate([user_request("hi")])
    (engine,) = fake_vllm.engines
    assert engine.kwargs == {
        "model": str(tiny_dirs["llava"].resolve()), "revision": "main", "dtype": "bfloat16",
        "tensor_parallel_size": 1, "gpu_memory_utilization": 0.5, "max_model_len": 2048,
        "limit_mm_per_prompt": {"image": 3}, "enforce_eager": True,
    }  # fmt: skip


def test_requests_are_answered_in_order_a_batch_per_call(
    tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM
) -> None:
    colours = ["red", "green", "blue", "red", "blue"]
    requests = [
        user_request(square("green"), square(c), "Colour?", params=GenerationParams(4 + i))
        for i, c in enumerate(colours)
    ]
    requests.append(user_request("No image here."))
    backend = VLLMBackend(config(tiny_dirs["llava"], batch_size=4, max_new_tokens=6))
    chunks: list[int] = []
    responses = backend.generate(requests, lambda chunk: chunks.append(len(chunk)))
    assert [r.text for r in responses] == [*colours, "none"]
    assert all(r.ok and r.usage.completion_tokens == 2 for r in responses)
    assert responses[0].usage.prompt_tokens > 32  # words and 16 per image
    (engine,) = fake_vllm.engines
    assert [len(call) for call in engine.calls] == [4, 2] and chunks == [4, 2]
    sent = [pair for call in engine.calls for pair in call]
    assert [params.max_tokens for _, params in sent] == [4, 5, 6, 6, 6, 6]  # capped at 6
    assert {(p.temperature, p.n) for _, p in sent} == {(0.0, 1)}
    assert "multi_modal_data" not in sent[-1][0]
    assert all(len(prompt["multi_modal_data"]["image"]) == 2 for prompt, _ in sent[:-1])


def test_a_bad_request_fails_alone(tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM) -> None:
    requests = [
        user_request(square("red"), "ok?"),
        user_request(b"broken bytes", "and this?"),
        user_request(square("blue"), "ok?"),
    ]
    responses = VLLMBackend(config(tiny_dirs["llava"])).generate(requests)
    assert [r.status for r in responses] == [Status.OK, Status.REQUEST_FAILED, Status.OK]
    assert "cannot be read" in (responses[1].error or "")
    assert [r.text for r in responses[::2]] == ["red", "blue"]


def test_context_overflow_retries_with_half_the_images_others_unharmed(
    tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM
) -> None:
    """A 70-position model: 4 images (64 tokens) and the prompt's text leave no room for an
    8-token reply, 2 images do. The others in the call still get their answers."""
    many = user_request(*(square(c) for c in ("red", "green", "blue", "green")), "Last colour?")
    requests = [user_request(square("red"), "Colour?"), many, user_request(square("blue"), "Hm?")]
    backend = VLLMBackend(config(tiny_dirs["llava"], max_model_len=70, max_new_tokens=8))
    responses = backend.generate(requests)
    assert [r.text for r in responses] == ["red", "green", "blue"]
    retried = responses[1]
    assert retried.ok and retried.attempts >= 2
    assert retried.image_notes[0].startswith("context overflow with 4 images (")
    assert retried.image_notes[0].endswith("; retrying with 2")
    assert "dropped image 1 of 4" in retried.image_notes
    assert all(r.attempts == 1 and not r.image_notes for r in responses[::2])


def test_a_prompt_that_never_fits_ends_as_context_overflow(
    tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM
) -> None:
    backend = VLLMBackend(config(tiny_dirs["llava"], max_model_len=20))
    (response,) = backend.generate([user_request(square("red"), "word " * 40)])
    assert response.status is Status.CONTEXT_OVERFLOW and response.attempts == 2
    assert response.image_notes[0].startswith("context overflow with 1 images")


def test_reply_room_counts_as_in_the_hf_backend(
    tiny_dirs: dict[str, Path], fake_vllm: FakeVLLM
) -> None:
    """A prompt that fits but leaves less room than the request's token limit is an overflow
    (the hf backend refuses it before generating), not an answer cut short by the context:
    the request is asked again with fewer images."""
    backend = VLLMBackend(config(tiny_dirs["llava"], max_model_len=60))
    request = user_request(square("red"), "Colour?", params=GenerationParams(max_new_tokens=50))
    (response,) = backend.generate([request])
    assert response.ok and response.text == "none" and response.attempts == 2
    assert re.fullmatch(
        r"context overflow with 1 images \(\d+ prompt \+ 50 new tokens > 60 positions\); "
        r"retrying with 0",
        response.image_notes[0],
    )


def test_identity_covers_the_model_and_decoding_not_the_placement(
    tiny_dirs: dict[str, Path],
) -> None:
    base = VLLMBackend(config(tiny_dirs["llava"])).identity
    assert base == {
        "backend": "vllm", "path": str(tiny_dirs["llava"].resolve()), "revision": None,
        "dtype": "auto", "max_model_len": None, "max_new_tokens": None,
        "decoding": {"temperature": 0.0, "n": 1, "skip_special_tokens": True},
        "image_budget": ImageBudget().model_dump(), "engine_args": {},
    }  # fmt: skip
    placement = {"batch_size": 3, "tensor_parallel_size": 8, "gpu_memory_utilization": 0.3}
    assert VLLMBackend(config(tiny_dirs["llava"], **placement)).identity == base
    for change in (
        {"revision": "abc123"}, {"dtype": "float16"}, {"max_model_len": 4096},
        {"max_new_tokens": 32}, {"image_budget": {"max_images": 2}},
        {"engine_args": {"mm_processor_kwargs": {"max_pixels": 1000}}},
    ):  # fmt: skip
        assert VLLMBackend(config(tiny_dirs["llava"], **change)).identity != base, change
    request = user_request("same request")
    hf_like = {**base, "backend": "hf"}
    assert cache_key(base, request) != cache_key(hf_like, request)  # its own cache entries
    assert commit_every(config(tiny_dirs["llava"], batch_size=32)) == 32


def test_vlmscope_run_generates_caches_and_reuses(
    tiny_dirs: dict[str, Path],
    fake_vllm: FakeVLLM,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`vlmscope run` on the colour track: the images reach the model (accuracy 1 where a
    sample has one), answers land in the cache and the result datasets, and a second run
    answers from the cache without vLLM at all (a CPU machine re-scoring)."""
    from vlmscope.cli import main

    raw = {
        "models": [{"backend": "vllm", "name": "fast-vlm", "path": str(tiny_dirs["llava"]),
                    "batch_size": 4, "tensor_parallel_size": 1}],
        "tracks": [{"name": "colours"}],
    }  # fmt: skip
    parse_config(raw)  # the config validates
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(raw))
    out = tmp_path / "results"
    assert main(["run", "--config", str(path), "--output-dir", str(out), "--limit", "9"]) == 0
    assert "fast-vlm" in capsys.readouterr().out
    (engine,) = fake_vllm.engines
    assert sum(len(call) for call in engine.calls) == 9
    assert max(len(call) for call in engine.calls) <= 4

    folder = result_dir(out, "fast-vlm", "colours", 9)
    details = load_folder(folder, "details")
    assert len(details) == 9 and {row["status"] for row in details} == {"ok"}
    with_images = [row for row in details if json.loads(row["scores"])["accuracy"] == 1.0]
    assert len(with_images) == 6  # samples 0, 3, 6 have no image: the model says "none"
    summary = load_folder(folder, "summary")[0]
    assert summary["run_counts"]["generated"] == 9

    monkeypatch.setitem(sys.modules, "vllm", None)  # vLLM gone: nothing must need it
    assert main(["run", "--config", str(path), "--output-dir", str(out), "--limit", "9"]) == 0
    counts = load_folder(folder, "summary")[0]["run_counts"]
    assert counts["cached"] == 9 and counts["generated"] == 0
    assert main(["run", "--config", str(path), "--output-dir", str(out), "--limit", "10"]) == 2
    assert "pip install 'vlmscope[vllm]'" in capsys.readouterr().err
