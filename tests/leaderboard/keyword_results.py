"""MEGA-Bench results with enough tasks per keyword for intervals, made by the real aggregation.

Twelve tasks (nine Core, three Open) with made-up metadata: some keywords span most tasks (they
get an interval), others one or two (too few: they must say so); two tasks take several images,
so the single-image subset has ten. Each model's summary holds the official keyword breakdown
(`summary_and_keyword_stats`, of all tasks and of the single-image subset) and the intervals
block (`headline_intervals`, with the subset's `subset_intervals`), exactly as a run's report
writes them, over seeded query scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from tests.leaderboard.fabricate import track_result
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.messages import Response, user_request
from vlmscope.runner.results import write_result
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.megabench.intervals import (
    SINGLE_IMAGE_KEY,
    headline_intervals,
    subset_intervals,
)
from vlmscope.tracks.megabench.keywords import TaskMeta
from vlmscope.tracks.megabench.official_files import (
    summary_and_keyword_stats,
    task_results_from_scored,
)
from vlmscope.tracks.megabench.single_image import single_image_entries

MODELS = {"kw-strong": 0.8, "kw-weak": 0.45}
"""Each model's typical query score."""
WIDE, NARROW = "Wide Skill", "Narrow Skill"
N_TASKS, N_OPEN, QUERIES = 12, 3, 6
SEVERAL_IMAGES = (3, 5)
"""The tasks outside the single-image subset."""


def task_name(i: int) -> str:
    return f"kw_task_{i:02d}"


def task_meta() -> dict[str, TaskMeta]:
    """Every task has `WIDE` and one application of two; eight have `Counting`, six `Spatial
    Reasoning`, two `NARROW`; all but `SEVERAL_IMAGES` take one image."""
    return {
        task_name(i): {
            "skills": [
                WIDE,
                *(["Counting"] if i < 8 else []),
                *(["Spatial Reasoning"] if i % 2 == 0 else []),
                *([NARROW] if i in (0, 1) else []),
            ],
            "input_format": "Photographs",
            "output_format": "exact_text" if i % 2 else "multiple_choice",
            "num_input": "2-3 images" if i in SEVERAL_IMAGES else "1-image",
            "app": "Rare App" if i == 0 else "Common App",
        }
        for i in range(N_TASKS)
    }


def task_entries(model: str) -> list[dict[str, Any]]:
    """`data_with_scores.json` entries: seeded query scores around the model's level."""
    rng = np.random.default_rng(sum(map(ord, model)))
    entries = []
    for i in range(N_TASKS):
        level = float(np.clip(MODELS[model] + rng.normal(0, 0.15), 0, 1))
        scores = [float(s) for s in rng.binomial(1, level, QUERIES)]
        entries.append(
            {
                "task_name": task_name(i),
                "eval_type": "llm" if i >= N_TASKS - N_OPEN else "rule",
                "example_info": {"example_text": "", "image_paths": []},
                "mean_task_score": sum(scores) / len(scores),
                "query_response": [{"scores": {"query": s}} for s in scores],
            }
        )
    return entries


def summary(model: str) -> dict[str, Any]:
    entries, meta = task_entries(model), task_meta()
    single = single_image_entries(entries, meta)
    stats = summary_and_keyword_stats(task_results_from_scored({"data": entries}), meta)
    headline = stats["model_summary"]
    intervals = headline_intervals(entries, meta)
    intervals[SINGLE_IMAGE_KEY] = subset_intervals(single, meta)
    single_stats = summary_and_keyword_stats(task_results_from_scored({"data": list(single)}), meta)
    return {
        "overall": headline["overall_score"],
        "core": headline["core"]["macro_mean_score"],
        "open": headline["open"]["macro_mean_score"],
        "single_image_overall": single_stats["model_summary"]["overall_score"],
        "intervals": intervals,
        "summary_and_keyword_stats": stats,
        "single_image": single_stats,
    }


def written_before(records: Mapping[str, SummaryRecord], *path: str) -> dict[str, SummaryRecord]:
    """The summaries as written before the block at `path` was recorded."""

    def drop(data: dict[str, object], keys: tuple[str, ...]) -> dict[str, object]:
        head, *rest = keys
        if not rest:
            return {k: v for k, v in data.items() if k != head}
        inner = data[head]
        assert isinstance(inner, dict)
        return {**data, head: drop(inner, tuple(rest))}

    return {m: replace(r, scores=drop(dict(r.scores), path)) for m, r in records.items()}


def write_keyword_results(out: Path) -> None:
    """Both models' results under `out`, one folder each (a single placeholder sample)."""
    for model in MODELS:
        row = (
            Sample(f"{task_name(0)}/0", user_request("question"), {"task_name": task_name(0)}),
            Response("answer"),
            Scored(f"{task_name(0)}/0", {"query_score": 1.0}),
        )
        write_result(out / model, track_result(model, "megabench", summary(model), [row]))
