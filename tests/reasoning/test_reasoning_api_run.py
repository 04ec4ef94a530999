"""A reasoning API as the evaluated model and as every judge, through whole `vlmscope run`s.

The stub refuses `max_tokens` and `temperature` as OpenAI's reasoning models do, and writes
misleading thoughts (`tests.reasoning.stubs`): a wrong `Answer:`, a contrary verdict, a low
score. With the reasoning-API fields set, every track scores the answers alone: MEGA-Bench's
rule metrics give full marks, its open judge its answer's score, SimpleVQA's grader its grade,
ProBench's and VisionArena-Bench's judges their answers' verdicts; every trace and its tokens
are kept. Without them, every request fails with an error naming the config field to set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.reasoning.runs import details, extra, gold_answers, summary, vlmscope_run
from tests.reasoning.stubs import REASONING_TOKENS, WRONG, ReasoningAPI, Thinker
from tests.servers import OpenAIStub

API_FIELDS = {
    "token_limit_field": "max_completion_tokens",
    "send_temperature": False,
    "reasoning_effort": "high",
}


def api_model(stub: OpenAIStub, name: str, **fields: Any) -> dict[str, Any]:
    return {"backend": "openai", "name": name, "base_url": stub.base_url, "model": "o-stub",
            "max_retries": 0, **fields}  # fmt: skip


def config(stub: OpenAIStub, out: Path) -> dict[str, Any]:
    judge = api_model(stub, "reasoning-judge", **API_FIELDS)
    return {
        "output_dir": str(out),
        "models": [api_model(stub, "thinker", **API_FIELDS), {"backend": "oracle"}],
        "tracks": [
            {"name": "megabench", "subset": "full", "judge": judge},
            {"name": "simplevqa", "judge": judge, "options": {"bootstrap_rounds": 20}},
            {"name": "probench", "subset": "multi-round", "judge": judge,
             "options": {"bootstrap_rounds": 20}},
            {"name": "visionarena_bench", "judge": judge,
             "options": {"anchor_answers": "anchor_answers.jsonl", "bootstrap_rounds": 20}},
        ],
    }  # fmt: skip


@pytest.fixture(scope="module")
def api_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReasoningAPI, OpenAIStub]:
    tmp_path = tmp_path_factory.mktemp("api")
    replier = ReasoningAPI(Thinker())
    with OpenAIStub(replier) as stub:
        raw = config(stub, tmp_path / "results")
        # the second SimpleVQA question: its thinking is cut off
        replier.thinker = gold_answers(raw, "thinker", cut="图中显示的数字是多少？")
        status, out = vlmscope_run(tmp_path, raw)
        assert status == 0
    return out, replier, stub


def test_the_body_is_a_reasoning_apis(api_run: tuple[Path, ReasoningAPI, OpenAIStub]) -> None:
    _, replier, stub = api_run
    assert replier.refused == [] and stub.calls
    for call in stub.calls:
        assert call.body is not None and "max_tokens" not in call.body
        assert call.body["reasoning_effort"] == "high" and call.body["max_completion_tokens"] > 0


def test_megabench_scores_the_answer_not_the_thinking(
    api_run: tuple[Path, ReasoningAPI, OpenAIStub],
) -> None:
    out = api_run[0]
    rows = {row["sample_id"]: row for row in details(out, "thinker", "megabench")}
    rule_scored = [r for r in rows.values() if not extra(r)["judge_replies"]]
    assert len(rule_scored) >= 6
    for row in rule_scored:  # every parser finds the gold, none the thinking's `Answer: WRONG`
        assert extra(row)["eval_type"] and row["status"] == "ok"
        assert json.loads(row["scores"])["query_score"] == 1.0
        assert row["reasoning"] == WRONG and row["reasoning_tokens"] == REASONING_TOKENS
        assert not row["reasoning_tokens_estimated"] and not row["truncated_in_reasoning"]
    judged = [r for r in rows.values() if extra(r)["judge_replies"]]
    assert judged
    for row in judged:  # the judge's answer's score (9), not its thought's (2)
        assert json.loads(row["scores"])["query_score"] == 0.9
        (trace,) = extra(row)["judge_reasoning"].values()
        assert trace == {"reasoning": "**Score**: 2 would be harsh.", "reasoning_tokens": 17}
    facts = summary(out, "thinker", "megabench")["generation"]
    assert facts["reasoning"]["answers_with_reasoning"] == len(rows)
    assert facts["reasoning"]["reasoning_tokens"] == REASONING_TOKENS * len(rows)
    assert facts["model_options"] == API_FIELDS
    assert facts["temperature"] is None  # not sent: the API decodes at its own


def test_simplevqa_grades_the_answer_and_flags_a_trace_cut_off(
    api_run: tuple[Path, ReasoningAPI, OpenAIStub],
) -> None:
    out = api_run[0]
    first, cut = details(out, "thinker", "simplevqa")
    assert (first["parsed"], first["reasoning"]) == ("correct", WRONG)
    assert extra(first)["grader_reasoning"]["reasoning_tokens"] == REASONING_TOKENS
    assert cut["response"] == "" and cut["truncated_in_reasoning"] and cut["status"] == "ok"
    assert cut["parsed"] == "not_attempted"  # an empty answer, graded as the grader reads it
    scores = summary(out, "thinker", "simplevqa")
    assert scores["generation"]["reasoning"]["truncated_in_reasoning"] == 1
    assert scores["judge"]["options"] == API_FIELDS and scores["judge"]["temperature"] is None


def test_pairwise_judges_read_verdicts_from_their_answers(
    api_run: tuple[Path, ReasoningAPI, OpenAIStub],
) -> None:
    out, _, stub = api_run
    for track in ("probench", "visionarena_bench"):
        for row in details(out, "thinker", track):
            games = extra(row)["games"]
            assert [g["label"] for g in games] == ["A>B", "A>B"], track  # not B>>A: the thought
            assert all(g["reasoning"] == "At first sight [[B>>A]], but no." for g in games)
            assert all(g["reasoning_tokens"] == REASONING_TOKENS for g in games)
            # style control's length is the answers' ("A careful answer." each turn), without
            # the traces
            turns = len(extra(row).get("turns", [None]))
            assert extra(row)["model_style"]["token_len"] == 3 * turns, track
    later_turns = [
        c for c in stub.calls if any(m["role"] == "assistant" for m in (c.body or {})["messages"])
    ]
    assert later_turns  # multi-round: the model's own answers are the history...
    for call in later_turns:  # ...without its thinking
        assert all(WRONG not in str(m["content"]) for m in (call.body or {})["messages"])


def test_without_the_api_fields_every_request_fails_naming_the_field(tmp_path: Path) -> None:
    replier = ReasoningAPI(Thinker())
    with OpenAIStub(replier) as stub:
        raw = {
            "output_dir": str(tmp_path / "results"),
            "models": [api_model(stub, "thinker", concurrency=1)],
            "tracks": [{"name": "megabench", "subset": "core"}],
        }
        status, out = vlmscope_run(tmp_path, raw)
    assert status == 0
    assert replier.refused == ["max_tokens"]  # asked once; the rest were not sent
    rows = details(out, "thinker", "megabench")
    assert rows and all(r["status"] == "request_failed" for r in rows)
    for row in rows:
        assert "'max_tokens'" in row["error"]
        assert "set `token_limit_field: max_completion_tokens`" in row["error"]


def test_every_earlier_turn_keeps_its_trace_beside_its_answer(
    api_run: tuple[Path, ReasoningAPI, OpenAIStub],
) -> None:
    """Multi-round ProBench: each turn before the last is in `earlier_turns`, its answer with
    its own trace and tokens, as the last turn's is in `response` and `reasoning`."""
    out, _, _ = api_run
    rows = details(out, "thinker", "probench")
    multi = [row for row in rows if len(extra(row)["turns"]) > 1]
    assert multi  # the subset is multi-round
    for row in multi:
        turns = extra(row)["turns"]
        earlier = row["earlier_turns"]
        assert [t["answer"] for t in earlier] == [t["answer"] for t in turns[:-1]]
        assert all(t["answer"] == "A careful answer." for t in earlier)
        assert all(t["reasoning"] == WRONG and t["status"] == "ok" for t in earlier)
        assert all(t["reasoning_tokens"] == REASONING_TOKENS for t in earlier)
        assert row["response"] == turns[-1]["answer"] and row["reasoning"] == WRONG
    for row in details(out, "thinker", "simplevqa"):  # single-turn: nothing before the answer
        assert row["earlier_turns"] == []
