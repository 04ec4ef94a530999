"""The headline intervals respect MEGA-Bench's aggregation: the macro averages they resample
are the official numbers (checked on the golden pipeline example), every official number lies
inside its interval, and a seed reproduces them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.megabench.golden_json import AGGREGATION, TASK_META, load
from vlmscope.stats.macro_bootstrap import macro_means, task_means
from vlmscope.tracks.megabench.intervals import (
    HEADLINES,
    counted,
    headline_intervals,
    keyword_membership,
    macro_layout,
)

EXAMPLE = AGGREGATION / "pipeline_example"


def _entries() -> list[dict[str, Any]]:
    """The example's scored tasks: the rule tasks, then its judged open task."""
    rule = load(EXAMPLE / "expected" / "data_with_scores.json")["data"]
    judged = load(EXAMPLE / "inputs" / "data_with_scores_open.json")["data"]
    return [*rule, *judged]


def _official() -> dict[str, Any]:
    summary: dict[str, Any] = load(EXAMPLE / "expected" / "summary_and_keyword_stats.json")
    return summary


def test_the_resampled_averages_are_the_official_numbers() -> None:
    entries, meta, official = _entries(), load(TASK_META), _official()
    tasks = [t["task_name"] for t in entries]
    layout = macro_layout(
        tasks,
        [len(t["query_response"]) for t in entries],
        [t["eval_type"] for t in entries],
        keyword_membership(tasks, meta),
    )
    scores = counted([q["scores"]["query"] for t in entries for q in t["query_response"]])
    point = macro_means(task_means(scores[:, None], layout.sizes), layout.groups)[:, 0]
    model = official["model_summary"]
    assert point[layout.group("overall")] == pytest.approx(model["overall_score"], abs=1e-12)
    assert point[layout.group("core")] == pytest.approx(
        model["core"]["macro_mean_score"], abs=1e-12
    )
    assert point[layout.group("open")] == pytest.approx(
        model["open"]["macro_mean_score"], abs=1e-12
    )
    stats = official["keyword_stats"]
    assert sum(len(kws) for kws in stats.values()) == len(layout.names) - len(HEADLINES)
    for dimension, keywords in stats.items():
        for keyword, stat in keywords.items():
            row = layout.group(f"{dimension}/{keyword}")
            assert layout.groups[row].sum() == stat["count"], (dimension, keyword)
            assert point[row] == pytest.approx(stat["average_score"], abs=1e-12)


def test_every_official_number_lies_in_its_interval() -> None:
    block = headline_intervals(_entries(), load(TASK_META), rounds=400)
    model = _official()["model_summary"]
    for key, official in (
        ("overall", model["overall_score"]),
        ("core", model["core"]["macro_mean_score"]),
        ("open", model["open"]["macro_mean_score"]),
    ):
        lower, upper = block[key]
        assert lower <= official <= upper and upper > lower, key
    for dimension, keywords in _official()["keyword_stats"].items():
        for keyword, stat in keywords.items():
            lower, upper = block["keywords"][dimension][keyword]
            assert lower - 1e-12 <= stat["average_score"] <= upper + 1e-12, (dimension, keyword)
    assert len(block["tasks"]["core"]) == 24 and len(block["tasks"]["open"]) == 1
    assert "queries with replacement within each drawn task" in block["method"]
    assert (block["rounds"], block["seed"], block["level"]) == (400, 0, 0.95)


def test_a_seed_reproduces_the_intervals_and_full_marks_have_no_spread() -> None:
    entries, meta = _entries(), load(TASK_META)
    assert headline_intervals(entries, meta, rounds=50) == headline_intervals(
        entries, meta, rounds=50
    )
    assert headline_intervals(entries, meta, rounds=50, seed=1) != headline_intervals(
        entries, meta, rounds=50
    )
    perfect = [
        {**t, "query_response": [{"scores": {"query": 1.0}} for _ in t["query_response"]]}
        for t in entries
    ]
    block = headline_intervals(perfect, meta, rounds=50)
    assert block["overall"] == block["core"] == block["open"] == [1.0, 1.0]


def test_without_open_tasks_there_is_no_overall_interval() -> None:
    rule = [t for t in _entries() if t["eval_type"] != "llm"]
    block = headline_intervals(rule, load(TASK_META), rounds=50)
    assert block["overall"] is None and block["open"] is None
    assert block["core"] is not None and np.isfinite(block["core"]).all()
    assert headline_intervals([], load(TASK_META), rounds=5)["core"] is None
