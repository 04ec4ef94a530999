"""Aggregation cases produced by the official MEGA-Bench tools (TIGER-AI-Lab/MEGA-Bench @ ee324ab:
`calculate_model_summary` and `derive_keyword_stats` over `collect_task_metadata`, and
`get_si_subset_from_full.main`) on task results the goldens do not cover, kept where a rule once
differed: a task named more than once counts once, as its later entry, and the single-image subset
places it by that entry's eval type while listing every one of its rows. Each line of
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
from vlmscope.tracks.megabench.single_image import single_image_entries

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
    assert_single_image_reproduced(
        results, single["task_results"], single["summary_and_keyword_stats"], all_meta
    )


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_single_image_entries_are_the_official_subset(
    case: dict[str, Any], all_meta: dict[str, Any]
) -> None:
    """The SI bootstrap's input (entries of `data_with_scores.json`) holds the official subset's
    rows in its order, a repeated task placed by its later entry's eval type (a002, a003)."""
    rows = case["inputs"]["task_results"]
    entries = [{"task_name": r["name"], "eval_type": r["eval_type"], "row": r} for r in rows]
    chosen = single_image_entries(entries, all_meta)
    assert [e["row"] for e in chosen] == case["expected"]["single_image"]["task_results"]
