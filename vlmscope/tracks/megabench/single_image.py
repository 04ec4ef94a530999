"""MEGA-Bench single-image (SI) subset taken from full results.

Mirrors `megabench/tools/get_si_subset_from_full.py` of TIGER-AI-Lab/MEGA-Bench: models that accept
several images are not re-run in the SI setting; their SI scores (paper Table 3, "demo im" column) are
the task-level mean over the tasks whose metadata says `num_input == "1-image"` (273 Core + 42 Open).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.tracks.megabench.aggregation import TaskResult
from vlmscope.tracks.megabench.keywords import TaskMeta

SINGLE_IMAGE_NUM_INPUT = "1-image"


def is_single_image_task(name: str, all_meta: Mapping[str, TaskMeta]) -> bool:
    """Whether the task belongs to the SI subset; tasks unknown to the metadata do not."""
    return name in all_meta and all_meta[name].get("num_input") == SINGLE_IMAGE_NUM_INPUT


def single_image_subset(
    results: Sequence[TaskResult], all_meta: Mapping[str, TaskMeta]
) -> list[TaskResult]:
    """The SI task results in the official order: Core ("rule") tasks first, then Open ("llm").

    Within each set the input order is kept, so the written `task_results.json` equals the official
    one entry for entry. Tasks of any other eval type are not part of either set and are dropped.
    A task named more than once is placed by its later entry's eval type (the official filter reads
    the `collect_task_metadata` dict) but listed with every one of its entries, as the official
    `process_subset_results` lists the rows of `task_results.json` whose name passed that filter.
    """
    final_type = {r.name: r.eval_type for r in results}
    selected = [r for r in results if is_single_image_task(r.name, all_meta)]
    core = [r for r in selected if final_type[r.name] == "rule"]
    open_tasks = [r for r in selected if final_type[r.name] == "llm"]
    return core + open_tasks


def single_image_entries(
    task_entries: Sequence[Mapping[str, Any]], all_meta: Mapping[str, TaskMeta]
) -> list[Mapping[str, Any]]:
    """The SI tasks among `data_with_scores.json` entries (each named by `task_name`), in the
    order of `single_image_subset`: Core first, then Open."""
    selected = [t for t in task_entries if is_single_image_task(str(t["task_name"]), all_meta)]
    return [t for t in selected if t["eval_type"] == "rule"] + [
        t for t in selected if t["eval_type"] == "llm"
    ]
