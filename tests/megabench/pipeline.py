"""The golden pipeline example (raw responses -> official files) and how to compare with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tests.megabench.golden_json import AGGREGATION, assert_json_close, load

PIPELINE = AGGREGATION / "pipeline_example"
INPUTS = PIPELINE / "inputs"
EXPECTED = PIPELINE / "expected"


def assert_tasks_match(
    ours: Sequence[Mapping[str, Any]], expected: Sequence[Mapping[str, Any]]
) -> None:
    """The expected task entries of a `data_with_scores.json`, in order: every query as given
    (response, answer, ids, text) and every number (task, field and query scores, info)."""
    assert [t["task_name"] for t in ours] == [t["task_name"] for t in expected]
    for mine, task in zip(ours, expected, strict=True):
        for key in ("task_score", "mean_task_score", "eval_type"):
            assert_json_close(mine[key], task[key])
        for my_query, query in zip(mine["query_response"], task["query_response"], strict=True):
            assert {k: v for k, v in my_query.items() if k != "scores"} == {
                k: v for k, v in query.items() if k != "scores"
            }
            for key in ("field", "info", "query"):
                assert_json_close(my_query["scores"][key], query["scores"][key])


def expected_task_results() -> list[dict[str, Any]]:
    """The expected `task_results.json` (24 Core tasks and one Open task), sorted by name."""
    results: list[dict[str, Any]] = load(EXPECTED / "task_results.json")
    return results
