"""`judge_program` reproduces the official MEGA-Bench program_judge scores, quirks included.

Cases are data: the upstream goldens (tests/golden/megabench_metric_cases.jsonl, metric level)
and our semantic cases (program_judge_cases.json, each with the reason for its score).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vlmscope.sandbox import SandboxPool, judge_program, judge_programs, judge_programs_detailed
from vlmscope.sandbox.judge import NO_OUTPUT_MESSAGE, TIME_LIMIT_MESSAGE, input_lines_of

HERE = Path(__file__).parent
GOLDEN = HERE.parent / "golden" / "megabench_metric_cases.jsonl"


def _golden_cases() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if r["level"] == "metric" and r["metric"] == "program_judge"]


SEMANTIC_CASES = json.loads((HERE / "program_judge_cases.json").read_text(encoding="utf-8"))[
    "cases"
]


def test_upstream_goldens(pool: SandboxPool) -> None:
    goldens = _golden_cases()
    assert goldens, "no program_judge goldens found"
    submissions = [
        (g["inputs"]["response"], g["inputs"]["eval_context"]["test_case"]) for g in goldens
    ]
    scores = judge_programs(submissions, pool=pool)
    assert scores == pytest.approx([g["expected"]["score"] for g in goldens], abs=1e-6)


def test_semantic_cases(pool: SandboxPool) -> None:
    scores = judge_programs([(c["code"], c["test_cases"]) for c in SEMANTIC_CASES], pool=pool)
    mismatches = [
        (case["name"], score, case["score"])
        for case, score in zip(SEMANTIC_CASES, scores, strict=True)
        if abs(score - case["score"]) > 1e-9
    ]
    assert mismatches == []


def test_non_string_response_fails_every_test_without_running(pool: SandboxPool) -> None:
    [outcomes] = judge_programs_detailed([(None, [{"input": [], "expected": ""}] * 2)], pool=pool)
    assert [o.passed for o in outcomes] == [False, False]
    assert all(o.run is None and o.observed == NO_OUTPUT_MESSAGE for o in outcomes)


def test_outcomes_record_upstream_texts(pool: SandboxPool) -> None:
    cases = {"input": ["x"], "expected": "x"}
    [[timed_out], [crashed], [raised]] = judge_programs_detailed(
        [("while True:\n    pass", cases), ("exit()", cases), ("1 / 0", cases)],
        timeout_s=1.0,
        pool=pool,
    )
    assert timed_out.observed == TIME_LIMIT_MESSAGE and timed_out.run is not None
    assert timed_out.run.timed_out
    assert crashed.observed == NO_OUTPUT_MESSAGE
    assert raised.observed == "ERROR during execution: division by zero"


def test_single_call_helper(pool: SandboxPool) -> None:
    code = "a, b = map(int, input().split())\nprint(a + b)"
    tests = [{"input": ["1 2"], "expected": "3"}, {"input": ["2 2"], "expected": "5"}]
    assert judge_program(code, tests, pool=pool) == 0.5


@pytest.mark.parametrize(
    ("inputs", "lines"),
    [(["a", "b"], ["a", "b"]), ([], [""]), (["a\r\nb"], ["a", "b"]), ("ab", ["a", "b"])],
    ids=["lines", "empty", "embedded-newline", "string-is-a-sequence-of-characters"],
)
def test_input_lines_follow_upstream_join_and_split(inputs: Any, lines: list[str]) -> None:
    assert input_lines_of({"input": inputs, "expected": ""}) == lines
