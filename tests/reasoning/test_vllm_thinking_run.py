"""A thinking model run in-process by vLLM (a stand-in engine), through `vlmscope run`.

The tiny `llava_thinking` model's chat template opens the trace, so the engine's replies hold
only its end: `...</think>` then the answer. The stand-in thinks aloud about the wrong colour
before naming the right one (`tests.models.test_vllm_backend`: it names the colour at the
centre of the last image). Scored on the answer, every sample with an image is right; the
model config's generation options reach vLLM's sampling parameters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.models.test_vllm_backend import FakeLLM, FakeVLLM, fake_vllm  # noqa: F401 (fixture)
from tests.reasoning.runs import details, summary, vlmscope_run

GENERATION = {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "seed": 1, "stop": ["<|end|>"],
              "repetition_penalty": 1.05}  # fmt: skip


def test_the_answer_after_the_trace_is_scored(
    fake_vllm: FakeVLLM,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = FakeLLM.generate

    def thinking(self: FakeLLM, prompts: list[dict[str, Any]], *args: Any, **kw: Any) -> Any:
        outputs = real(self, prompts, *args, **kw)
        for prompt, output in zip(prompts, outputs, strict=True):
            assert prompt["prompt"].endswith("<think>\n")  # the template opened the trace
            answer = output.outputs[0].text
            output.outputs[0].text = f"It looks purple. Answer: purple\n</think>\n\n{answer}"
        return outputs

    monkeypatch.setattr(FakeLLM, "generate", thinking)
    from vlmscope.models.tiny import build_tiny_model

    build_tiny_model(tmp_path / "thinking", "llava_thinking")
    raw = {
        "output_dir": str(tmp_path / "results"),
        "models": [{"backend": "vllm", "name": "thinking-vlm", "path": str(tmp_path / "thinking"),
                    "generation": GENERATION, "system_prompt": "Name the colour."}],
        "tracks": [{"name": "colours"}],
    }  # fmt: skip
    status, out = vlmscope_run(tmp_path, raw)
    assert status == 0
    rows = details(out, "thinking-vlm", "colours")
    with_image = [r for r in rows if r["response"] != "none"]
    assert with_image and all(json.loads(r["scores"])["accuracy"] == 1.0 for r in with_image)
    assert all(r["reasoning"] == "It looks purple. Answer: purple" for r in rows)
    (engine,) = fake_vllm.engines
    for prompt, params in (pair for call in engine.calls for pair in call):
        assert "Name the colour." in prompt["prompt"]
        assert {k: getattr(params, k) for k in GENERATION} == GENERATION
    facts = summary(out, "thinking-vlm", "colours")["generation"]
    assert facts["temperature"] == [0.6] and facts["reasoning"]["answers_with_reasoning"] == 2
