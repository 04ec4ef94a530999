"""Read and write MEGA-Bench result files in the official shapes.

The official tooling (TIGER-AI-Lab/MEGA-Bench `megabench/evaluation_processor.py`,
`megabench/tools/derive_breakdown_results.py`, `megabench/tools/get_si_subset_from_full.py`) reads and
writes three files; producing the same shapes lets a user run the official breakdown tools on our output
and compare a vlmscope run with a published one file by file:

- `data_with_scores.json`: `{"data": [task, ...], "summary": {...}}`, each task the response-file entry
  plus per-query `scores` and task-level `task_score`, `mean_task_score`, `eval_type`;
- `task_results.json`: a list of `{name, score, eval_type, num_demo, num_query}`;
- `summary_and_keyword_stats.json`: `{"model_summary": {core, open, overall_score}, "keyword_stats":
  {dimension: {keyword: {count, num_samples, tasks, average_score}}}}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vlmscope import data_files
from vlmscope.atomic_files import write_text_atomic
from vlmscope.tracks.megabench.aggregation import (
    TaskResult,
    merge_task_results,
    model_summary,
)
from vlmscope.tracks.megabench.keywords import TaskMeta, join_task_meta, keyword_stats

DATA_WITH_SCORES = "data_with_scores.json"
TASK_RESULTS = "task_results.json"
SUMMARY_AND_KEYWORD_STATS = "summary_and_keyword_stats.json"
SINGLE_IMAGE_DIR = "single_image"
"""The folder of the single-image subset's `task_results.json` and summary."""


def read_json(path: str | Path) -> Any:
    """The JSON document of a result file; a ValueError naming the file when it does not read."""
    return data_files.read_json(path)


def write_json(path: str | Path, document: Any, *, ensure_ascii: bool = True) -> Path:
    """Write with the official 4-space indentation, creating parent folders."""
    return write_text_atomic(path, json.dumps(document, indent=4, ensure_ascii=ensure_ascii))


def num_demo_of(task: Mapping[str, Any]) -> int:
    """1 when the task shows a demonstration (text or media), else 0, as the official code counts it."""
    example_info = task["example_info"]
    return 1 if example_info["example_text"] or example_info["image_paths"] else 0


def task_results_from_scored(document: Any) -> list[TaskResult]:
    """Task results from one scored file, as `merge_json_files` reads it.

    A `{"data": [...]}` document is refined like `task_list_refine` (tasks without a `mean_task_score`
    or scored -1 are dropped); a plain list is taken to be task results already.
    """
    if isinstance(document, Mapping) and "data" in document:
        return [
            TaskResult(
                name=task["task_name"],
                score=task["mean_task_score"],
                eval_type=task["eval_type"],
                num_demo=num_demo_of(task),
                num_query=len(task["query_response"]),
            )
            for task in document["data"]
            if "mean_task_score" in task and task["mean_task_score"] != -1
        ]
    return [TaskResult.from_json(entry) for entry in document]


def merge_scored_files(documents: Iterable[Any]) -> list[TaskResult]:
    """`task_results.json` from several `data_with_scores*.json` documents (llm entries win)."""
    return merge_task_results(task_results_from_scored(document) for document in documents)


def write_task_results(path: str | Path, results: Sequence[TaskResult]) -> Path:
    return write_json(path, [result.to_json() for result in results])


def write_data_with_scores(path: str | Path, document: Mapping[str, Any]) -> Path:
    """The evaluator writes this file with `ensure_ascii=False`; so do we."""
    return write_json(path, document, ensure_ascii=False)


def summary_and_keyword_stats(
    results: Sequence[TaskResult], all_meta: Mapping[str, TaskMeta]
) -> dict[str, Any]:
    """The official `summary_and_keyword_stats.json` document for these task results."""
    joined = join_task_meta(results, all_meta)
    summary = model_summary(results, known_tasks=joined.keys())
    return {"model_summary": summary.to_json(), "keyword_stats": keyword_stats(joined)}
