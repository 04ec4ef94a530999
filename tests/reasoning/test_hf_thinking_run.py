"""A local thinking model (`hf`) through `vlmscope run`: thinking on and off by config.

The tiny `llava_thinking` model's chat template opens a `<think>` block in the assistant turn
unless `enable_thinking` is false, as Qwen3-VL-Thinking's and GLM-4.5V's do. Its random
weights never close the block within a few tokens, so with thinking on every reply ends inside
its trace: no answer, flagged and counted; with `generation.chat_template_kwargs:
{enable_thinking: false}` the same weights answer. The two configs have their own cache keys,
and a rerun of either asks nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.reasoning.runs import details, summary, vlmscope_run
from vlmscope.hub_export import load_folder
from vlmscope.runner.results import result_dir

OFF = {"chat_template_kwargs": {"enable_thinking": False}}


def tiny(path: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {"backend": "hf", "name": name, "path": str(path), "tiny_arch": "llava_thinking",
            "max_new_tokens": 6, "batch_size": 2, **fields}  # fmt: skip


@pytest.mark.timeout(300)
def test_thinking_on_is_flagged_and_off_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny-thinking"
    raw = {
        "output_dir": str(tmp_path / "results"),
        "models": [
            tiny(path, "thinking-on", system_prompt="Think step by step."),
            tiny(path, "thinking-off", generation=OFF),
        ],
        "tracks": [{"name": "simplevqa", "options": {"grader": "offline_match"}}],
    }
    status, out = vlmscope_run(tmp_path, raw)
    assert status == 0
    printed = capsys.readouterr().out
    assert (
        "thinking-on / simplevqa: 2 of 2 reasoned answers ended inside their reasoning" in printed
    )
    # the way out names the limit that ran out: the model's own cap of 6 on SimpleVQA's 512
    assert "the model's max_new_tokens: 6 cut the track's limit of 512 tokens" in printed

    on = details(out, "thinking-on", "simplevqa")
    assert len(on) == 2
    for row in on:
        assert row["status"] == "ok" and row["response"] == "" and row["truncated_in_reasoning"]
        assert row["reasoning"] and row["reasoning_tokens"] == row["completion_tokens"] == 6
    facts = summary(out, "thinking-on", "simplevqa")["generation"]
    assert facts["reasoning"]["truncated_in_reasoning"] == 2
    assert facts["model_options"] == {"system_prompt": "Think step by step."}

    off = details(out, "thinking-off", "simplevqa")
    assert all(r["response"] and not r["truncated_in_reasoning"] for r in off)
    assert all(r["reasoning"] == "" and r["reasoning_tokens"] == 0 for r in off)
    facts = summary(out, "thinking-off", "simplevqa")["generation"]
    assert "reasoning" not in facts and facts["model_options"] == {"generation": OFF}

    def counts(model: str) -> dict[str, Any]:
        folder = result_dir(out, model, "simplevqa", 2)
        return dict(load_folder(folder, "summary")[0]["run_counts"])

    assert counts("thinking-off")["generated"] == 2  # not the thinking model's answers
    assert vlmscope_run(tmp_path, raw)[0] == 0
    assert counts("thinking-on")["cached"] == counts("thinking-off")["cached"] == 2
    assert counts("thinking-on")["generated"] == counts("thinking-off")["generated"] == 0
