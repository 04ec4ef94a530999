"""MEGA-Bench keyword breakdown: per-keyword task counts, sample counts and mean scores.

Mirrors `megabench/tools/analysis_utils.py` of TIGER-AI-Lab/MEGA-Bench (`collect_task_metadata` and
`derive_keyword_stats`) so that the breakdown behind the leaderboard's radar plots (skills, input format,
output format, number of visual inputs, application) can be reproduced from our per-task results.

The 505-task metadata (`all_task_meta.json`, copied from the same repository) ships with the package.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypedDict

from vlmscope.data_files import read_json
from vlmscope.tracks.megabench.aggregation import TaskResult

TaskMeta = Mapping[str, Any]
"""One task's metadata: `skills` (list), `input_format`, `output_format`, `num_input`, `app`, ..."""

KEYWORD_DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("input_format", "input_format"),
    ("output_format", "output_format"),
    ("input_num", "num_input"),
    ("app", "app"),
)
"""(output dimension name, metadata key) for the single-valued dimensions; `skills` is a list and is
handled first, as in the official tool. The number of inputs is stored as `num_input` but reported as
`input_num`."""

DIMENSION_NAMES: tuple[str, ...] = ("skills", *(name for name, _ in KEYWORD_DIMENSIONS))


class KeywordStat(TypedDict):
    """One keyword's statistics in the official shape (and key order).

    count: tasks with the keyword; num_samples: their queries plus demonstrations; tasks: per-task
    (name, score) pairs, empty unless requested; average_score: mean task score.
    """

    count: int
    num_samples: int
    tasks: list[tuple[str, float]]
    average_score: float


KeywordStats = dict[str, dict[str, KeywordStat]]
"""dimension name -> keyword -> statistics, keywords in order of first appearance."""


def load_task_meta(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Load the task metadata: the packaged 505-task file, or the JSON file at `path`."""
    if path is not None:
        found = read_json(path)
        if not isinstance(found, dict) or not all(isinstance(v, dict) for v in found.values()):
            raise ValueError(f"{path}: expected an object of task name -> task metadata")
        return found
    packaged = resources.files("vlmscope.tracks.megabench").joinpath("data/all_task_meta.json")
    text = packaged.read_text(encoding="utf-8")
    meta: dict[str, dict[str, Any]] = json.loads(text)
    return meta


TASK_META_NAME = "all_task_meta.json"


def task_meta_for(data_dir: str | Path) -> dict[str, dict[str, Any]]:
    """The task metadata in use for a data folder: its own `all_task_meta.json` if it has one,
    else the 505-task file we ship. Every task of the data must have an entry (rows are checked
    when read), since a task without one would drop out of the official summary."""
    local = Path(data_dir) / TASK_META_NAME
    return load_task_meta(local if local.exists() else None)


def join_task_meta(
    results: Sequence[TaskResult], all_meta: Mapping[str, TaskMeta]
) -> dict[str, dict[str, Any]]:
    """Each result's metadata updated with the result's fields (`collect_task_metadata`).

    Tasks absent from the metadata are dropped, which is also what keeps unknown task names out of the
    Core / Open summary. A name given twice keeps the later result.
    """
    joined: dict[str, dict[str, Any]] = {}
    for result in results:
        if result.name in all_meta:
            entry = dict(all_meta[result.name])
            entry.update(result.to_json())
            joined[result.name] = entry
    return joined


def _new_stat() -> dict[str, Any]:
    return {"count": 0, "total_score": 0.0, "num_samples": 0, "tasks": []}


def _add(
    stats: dict[str, dict[str, Any]], keyword: str, entry: Mapping[str, Any], with_tasks: bool
) -> None:
    stat = stats.setdefault(keyword, _new_stat())
    stat["count"] += 1
    stat["total_score"] += entry.get("score", 0.0)
    stat["num_samples"] += entry.get("num_query", 0) + entry.get("num_demo", 0)
    if with_tasks:
        stat["tasks"].append((entry["name"], entry.get("score", 0.0)))


def keyword_stats(
    joined_meta: Mapping[str, Mapping[str, Any]], include_per_task_info: bool = False
) -> KeywordStats:
    """Per-dimension keyword statistics over tasks joined with their metadata (`derive_keyword_stats`).

    Tasks scored -1 are skipped; every skill of a task counts, and the single value of each other
    dimension counts unless it is empty. (With `include_per_task_info` the official tool lists each task
    as "Unknown Task" because the metadata has no `original_task_name`; the real name is used here.)
    """
    raw: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in DIMENSION_NAMES}
    for entry in joined_meta.values():
        if entry.get("score", 0.0) == -1:
            continue
        for skill in entry.get("skills", []):
            _add(raw["skills"], skill, entry, include_per_task_info)
        for dimension, meta_key in KEYWORD_DIMENSIONS:
            if value := entry.get(meta_key):
                _add(raw[dimension], value, entry, include_per_task_info)
    return {
        dimension: {
            keyword: KeywordStat(
                count=stat["count"],
                num_samples=stat["num_samples"],
                tasks=stat["tasks"],
                average_score=stat["total_score"] / stat["count"] if stat["count"] else 0.0,
            )
            for keyword, stat in keywords.items()
        }
        for dimension, keywords in raw.items()
    }
