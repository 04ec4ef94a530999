"""Cases produced by the official SimpleVQA code (SimpleVQA/SimpleVQA commit b94d1f3d05d7,
`llm_as_a_vqa_judger.py` and `simpleVQA_eval.py`, run as published on generated inputs; see
`cases/official_parity_cases.json`): the Chinese grader prompt it sends, how it grades a reply,
and the metrics it prints. Where the official code crashes (or keeps an empty verdict dict), the
case says so and expects ours: unparseable, or no rate for an empty set.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from vlmscope.tracks.simplevqa.grader_prompt import load_grader_prompt
from vlmscope.tracks.simplevqa.grading import Grade, parse_reply
from vlmscope.tracks.simplevqa.metrics import factuality_rates

CASES = json.loads(
    (Path(__file__).parent / "cases" / "official_parity_cases.json").read_text(encoding="utf-8")
)
EXPECTED = {"correct": Grade.CORRECT, "incorrect": Grade.INCORRECT,
            "not_attempted": Grade.NOT_ATTEMPTED, "unparseable": Grade.UNPARSEABLE}  # fmt: skip


@pytest.mark.parametrize("case", CASES["replies"], ids=lambda c: repr(c["reply"])[:40])
def test_replies_are_graded_as_the_official_script_grades_them(case: dict[str, str]) -> None:
    assert parse_reply(case["reply"], "json_labels") is EXPECTED[case["expected"]]
    if case["official"] in EXPECTED:  # the official script gave a grade: ours is the same one
        assert case["expected"] == case["official"]


def test_reply_cases_cover_every_official_outcome() -> None:
    seen = {c["official"] for c in CASES["replies"]}
    assert {"correct", "incorrect", "not_attempted", "no class, row still in N"} <= seen
    assert any(o.startswith("crash:") for o in seen)


@pytest.mark.parametrize("case", CASES["metrics"], ids=lambda c: str(c["counts"]))
def test_metrics_are_the_official_ones(case: dict) -> None:
    rates = factuality_rates(*case["counts"])
    for name, official in case["expected"].items():
        if official is None:  # the official script crashes on an empty set: ours has no rate
            assert rates[name] is None and "crash" in case["official"]
        else:
            assert rates[name] == pytest.approx(official, rel=0, abs=1e-9), name


@pytest.mark.parametrize("case", CASES["prompts"], ids=lambda c: repr(c["question"])[:30])
def test_chinese_grader_prompt_is_the_one_the_official_judger_sends(case: dict[str, str]) -> None:
    prompt = load_grader_prompt("simplevqa_grader_zh.txt")
    text = prompt.render(case["question"], case["gold_answer"], case["predicted_answer"])
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == case["sha256"]
