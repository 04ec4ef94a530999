"""Aggregation cases produced by the official MEGA-Bench tools (TIGER-AI-Lab/MEGA-Bench @ ee324ab:
`calculate_model_summary` and `derive_keyword_stats` over `collect_task_metadata`, and
`get_si_subset_from_full.main`) on task results the goldens do not cover, kept where a rule once
differed: a task named more than once counts once, as its later entry, and the single-image subset
places it by that entry's eval type while listing every one of its rows; rows are kept as written
(a missing `num_demo` stays missing, a float count stays a float, an extra key stays, and a row's
own `num_input` stands for the metadata's in the single-image filter), and where the subset's
Core or Open set is empty the official tool writes no single-image files at all (`single_image`
is null: a010-a013, among them a task whose Core row is outvoted by its later Open one). Each line of
`official_aggregation_cases.jsonl` holds the input `task_results` and the official documents; they
are checked the way the aggregation goldens are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.megabench.golden_json import TASK_META
from tests.megabench.test_aggregation import (
    assert_single_image_reproduced,
    assert_summary_reproduced,
)
from vlmscope.tracks.megabench.aggregation import TaskResult
from vlmscope.tracks.megabench.keywords import load_task_meta
from vlmscope.tracks.megabench.single_image import (
    official_single_image_subset,
    single_image_entries,
    single_image_subset,
)

CASES_FILE = Path(__file__).resolve().parent / "official_aggregation_cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def all_meta() -> dict[str, dict[str, Any]]:
    return load_task_meta(TASK_META)


def test_the_cases_repeat_task_names() -> None:
    assert len({case["id"] for case in CASES}) == len(CASES) >= 5
    for case in CASES[:5]:
        names = [row["name"] for row in case["inputs"]["task_results"]]
        assert len(set(names)) < len(names), case["id"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_official_aggregation_case(case: dict[str, Any], all_meta: dict[str, Any]) -> None:
    results = [TaskResult.from_json(row) for row in case["inputs"]["task_results"]]
    expected = case["expected"]
    assert_summary_reproduced(results, expected["summary_and_keyword_stats"], all_meta)
    single = expected["single_image"]
    written = official_single_image_subset(results, all_meta)
    if single is None:
        assert written is None
        return
    assert written is not None and written == single_image_subset(results, all_meta)
    assert_single_image_reproduced(
        results, single["task_results"], single["summary_and_keyword_stats"], all_meta
    )


# The cases with a single-image subset to compare entries against. Left out: those where the
# official tool writes no subset, and those where a row's own `num_input` overrides the
# metadata's (a009), which a `data_with_scores.json` entry cannot carry.
SUBSET_CASES = [
    case
    for case in CASES
    if case["expected"]["single_image"] is not None
    and not any("num_input" in row for row in case["inputs"]["task_results"])
]


@pytest.mark.parametrize("case", SUBSET_CASES, ids=[case["id"] for case in SUBSET_CASES])
def test_single_image_entries_are_the_official_subset(
    case: dict[str, Any], all_meta: dict[str, Any]
) -> None:
    """The SI bootstrap's input (entries of `data_with_scores.json`) holds the official subset's
    rows in its order, a repeated task placed by its later entry's eval type (a002, a003)."""
    rows = case["inputs"]["task_results"]
    entries = [{"task_name": r["name"], "eval_type": r["eval_type"], "row": r} for r in rows]
    chosen = single_image_entries(entries, all_meta)
    assert [e["row"] for e in chosen] == case["expected"]["single_image"]["task_results"]


def test_a_count_that_is_not_a_number_is_refused_naming_the_row() -> None:
    """The official sums fail on `"5" + 0`; the row and key are named instead."""
    row = {"name": "math_parity", "score": 0.5, "eval_type": "rule", "num_query": "5"}
    with pytest.raises(ValueError, match=r"'math_parity': num_query is '5'"):
        TaskResult.from_json(row)
    assert TaskResult.from_json({**row, "num_query": 5.0}).to_json() == {**row, "num_query": 5.0}
