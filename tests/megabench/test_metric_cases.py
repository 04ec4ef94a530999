"""Every MEGA-Bench golden case (metrics, parsing, queries, judge, aggregation) against the official
results, both through the library and through `vlmscope megabench score-cases`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vlmscope.cli.megabench import main
from vlmscope.tracks.megabench.score_cases import case_passes, compute_case, read_cases

CASES_FILE = Path(__file__).resolve().parent.parent / "golden" / "megabench_metric_cases.jsonl"
CASES = read_cases(CASES_FILE)


def _without_expected(case: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in case.items() if key != "expected"}


def test_the_golden_file_holds_every_case_kind() -> None:
    levels = {case["level"] for case in CASES}
    assert len(CASES) == 192
    assert levels == {
        "metric",
        "parse",
        "query",
        "judge_parse",
        "judge_prompt",
        "field_aggregation",
    }


def assert_case_reproduced(case: dict[str, Any]) -> None:
    """Ours, computed from the case without its expected result, matches the official one."""
    blind = _without_expected(case)
    ours = compute_case(blind["level"], blind.get("metric"), blind["inputs"])
    assert case_passes(case, ours), f"ours={ours!r} expected={case['expected']!r}"


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_golden_case(case: dict[str, Any]) -> None:
    assert_case_reproduced(case)


def test_score_cases_command_reproduces_all_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scored.jsonl"
    code = main(["score-cases", str(CASES_FILE), "--out", str(out)])
    printed = capsys.readouterr().out
    assert "192 passed, 0 failed" in printed
    assert code == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [case["id"] for case in written] == [case["id"] for case in CASES]
    assert all(set(case["ours"]) == set(case["expected"]) for case in written)


def test_score_cases_command_reports_a_wrong_expectation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = dict(CASES[0], expected={"score": 0.5})
    cases_file = tmp_path / "cases.jsonl"
    cases_file.write_text(json.dumps(broken) + "\n", encoding="utf-8")
    code = main(["score-cases", str(cases_file), "--out", str(tmp_path / "out.jsonl")])
    assert code == 1
    assert "0 passed, 1 failed" in capsys.readouterr().out
