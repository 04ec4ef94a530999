"""A thinking model served without a reasoning parser (inline `<think>`), through `vlmscope run`.

The same misleading thoughts as the reasoning API's (`tests.reasoning.stubs`), written inline
before the answer. With the default reasoning tags every track scores the answer alone, and a
reply cut off inside its thinking is flagged and counted; the same model with `reasoning_tags:
none` is scored on its thinking too, which is the failure the split prevents. The model
config's generation options reach the server, and its cache keys change with them only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.reasoning.runs import details, extra, gold_answers, summary, vlmscope_run
from tests.reasoning.stubs import WRONG, InlineThinking, Thinker
from tests.servers import OpenAIStub

GENERATION = {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "seed": 0,
              "chat_template_kwargs": {"enable_thinking": True}}  # fmt: skip
CUT = "图中显示的数字是多少？"  # the second SimpleVQA question: its thinking is cut off


def served(stub: OpenAIStub, name: str, **fields: Any) -> dict[str, Any]:
    return {"backend": "openai", "name": name, "base_url": stub.base_url,
            "model": "Qwen/Qwen3-VL-8B-Thinking", "max_retries": 0, **fields}  # fmt: skip


def config(stub: OpenAIStub, out: Path, generation: dict[str, Any]) -> dict[str, Any]:
    judge = served(stub, "thinking-judge")
    return {
        "output_dir": str(out),
        "models": [
            served(stub, "thinker", generation=generation),
            served(stub, "unsplit", generation=generation, reasoning_tags="none"),
        ],
        "tracks": [
            {"name": "megabench", "subset": "core"},
            {"name": "simplevqa", "judge": judge, "options": {"bootstrap_rounds": 20}},
            {"name": "probench", "subset": "singleround", "judge": judge,
             "options": {"bootstrap_rounds": 20}},
        ],
    }  # fmt: skip


@pytest.fixture(scope="module")
def inline_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, OpenAIStub, str]:
    tmp_path = tmp_path_factory.mktemp("inline")
    replier = InlineThinking(Thinker())
    with OpenAIStub(replier) as stub:
        raw = config(stub, tmp_path / "results", GENERATION)
        replier.thinker = gold_answers(raw, "thinker", cut=CUT)
        status, out = vlmscope_run(tmp_path, raw)
    assert status == 0
    return out, stub, ""


def test_the_generation_options_reach_the_server(inline_run: tuple[Path, OpenAIStub, str]) -> None:
    stub = inline_run[1]
    models = [c.body for c in stub.calls if c.body and "top_k" in c.body]
    assert models and all({k: body[k] for k in GENERATION} == GENERATION for body in models)
    judges = [c.body for c in stub.calls if c.body and "top_k" not in c.body]
    assert judges and all(body["temperature"] == 0.0 for body in judges)  # the track's rule


def test_megabench_is_scored_on_the_answer_and_would_not_be_on_the_whole_text(
    inline_run: tuple[Path, OpenAIStub, str],
) -> None:
    out = inline_run[0]
    rows = details(out, "thinker", "megabench")
    assert rows and all(json.loads(r["scores"])["query_score"] == 1.0 for r in rows)
    assert all(r["reasoning"] == WRONG and r["reasoning_tokens_estimated"] for r in rows)
    # no usage from the server: the trace's share of the completion, by length
    assert all(0 < r["reasoning_tokens"] <= r["completion_tokens"] for r in rows)
    assert any(r["reasoning_tokens"] < r["completion_tokens"] for r in rows)
    unsplit = details(out, "unsplit", "megabench")
    assert all(r["reasoning"] == "" and "<think>" in r["response"] for r in unsplit)
    wrong = {r["sample_id"].split("/")[0] for r in unsplit
             if json.loads(r["scores"])["query_score"] < 1.0}  # fmt: skip
    # every task whose parser takes the last `Answer:` parses the thinking's `Answer: WRONG`
    answer_string = {"sample_single_answer", "sample_verbatim_code", "sample_ascii_shape",
                     "sample_video_count", "sample_video_file"}  # fmt: skip
    assert wrong == answer_string
    assert summary(out, "unsplit", "megabench")["generation"]["model_options"] == {
        "reasoning_tags": "none",
        "generation": GENERATION,
    }


def test_a_reply_cut_off_in_its_thinking_is_flagged_and_counted(
    inline_run: tuple[Path, OpenAIStub, str],
) -> None:
    out = inline_run[0]
    first, cut = details(out, "thinker", "simplevqa")
    assert first["parsed"] == "correct" and not first["truncated_in_reasoning"]
    assert cut["response"] == "" and cut["truncated_in_reasoning"]
    assert (
        cut["reasoning"].startswith(WRONG) and cut["reasoning_tokens"] == cut["completion_tokens"]
    )
    facts = summary(out, "thinker", "simplevqa")["generation"]["reasoning"]
    assert facts["truncated_in_reasoning"] == 1 and facts["answers_with_reasoning"] == 2
    assert "reasoning" not in summary(out, "unsplit", "simplevqa")["generation"]


def test_the_judges_verdicts_come_from_their_answers(
    inline_run: tuple[Path, OpenAIStub, str],
) -> None:
    out = inline_run[0]
    for row in details(out, "thinker", "probench"):
        games = extra(row)["games"]
        assert [g["label"] for g in games] == ["A>B", "A>B"]
        assert all("[[B>>A]]" in g["reasoning"] and g["reasoning_tokens"] > 0 for g in games)


def test_cache_keys_change_with_the_options_and_not_otherwise(tmp_path: Path) -> None:
    replier = InlineThinking(Thinker())
    with OpenAIStub(replier) as stub:
        raw = config(stub, tmp_path / "results", GENERATION)
        raw["tracks"] = raw["tracks"][:1]
        assert vlmscope_run(tmp_path, raw)[0] == 0
        first = len(stub.calls)
        assert vlmscope_run(tmp_path, raw)[0] == 0
        assert len(stub.calls) == first  # the same config re-asks nothing
        raw["models"][0]["generation"] = {**GENERATION, "seed": 1}
        assert vlmscope_run(tmp_path, raw)[0] == 0
        asked_again = stub.calls[first:]
    assert len(asked_again) == first // 2  # only the model whose options changed
    assert all(call.body and call.body["seed"] == 1 for call in asked_again)
