"""Cases found by sweeping variants of the golden inputs through the official MEGA-Bench scorer
(TIGER-AI-Lab/MEGA-Bench @ ee324ab) and ours: each one's `expected` is what the official code
returned on its inputs, kept where a rule once differed (unhashable literals in set metrics,
aggregation names in any case, `unsupported` aggregation over any scores, a cut-off `\\boxed{`
whose official search outlasts its alarm, arithmetic chained too deep for a recursive evaluator).
Same schema as the goldens, checked the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.megabench.test_metric_cases import assert_case_reproduced
from vlmscope.tracks.megabench.score_cases import read_cases

CASES_FILE = Path(__file__).resolve().parent / "official_sweep_cases.jsonl"
CASES = read_cases(CASES_FILE)


def test_the_sweep_cases_cover_metrics_aggregation_and_queries() -> None:
    assert {case["level"] for case in CASES} == {"metric", "field_aggregation", "query"}
    assert len({case["id"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_official_sweep_case(case: dict[str, Any]) -> None:
    assert_case_reproduced(case)
