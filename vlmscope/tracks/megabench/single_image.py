"""MEGA-Bench single-image (SI) subset taken from full results.

Mirrors `megabench/tools/get_si_subset_from_full.py` of TIGER-AI-Lab/MEGA-Bench: models that accept
several images are not re-run in the SI setting; their SI scores (paper Table 3, "demo im" column) are
the task-level mean over the tasks whose metadata says `num_input == "1-image"` (273 Core + 42 Open).
The official tool writes the subset's files only when both its Core and its Open set hold a task
(`official_single_image_subset`): a run without Open tasks, or whose Open or Core tasks all take
several images, has no single-image files and no single-image numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from vlmscope.tracks.megabench.aggregation import TaskResult
from vlmscope.tracks.megabench.keywords import TaskMeta

SINGLE_IMAGE_NUM_INPUT = "1-image"

_Item = TypeVar("_Item")


def single_image_subset(
    results: Sequence[TaskResult], all_meta: Mapping[str, TaskMeta]
) -> list[TaskResult]:
    """The SI task results in the official order: Core ("rule") tasks first, then Open ("llm").

    Within each set the input order is kept, so the written `task_results.json` equals the official
    one entry for entry. Tasks of any other eval type are not part of either set and are dropped.
    A task named more than once is placed as `_core_and_open` says.
    """
    core, open_set = _result_sets(results, all_meta)
    return core + open_set


def official_single_image_subset(
    results: Sequence[TaskResult], all_meta: Mapping[str, TaskMeta]
) -> list[TaskResult] | None:
    """The SI task results as the official tool writes them, or None where it writes no files.

    `get_si_subset_from_full.main` writes `task_results.json` and `summary_and_keyword_stats.json`
    only when both the Core and the Open set of the subset are non-empty (its summary needs both);
    otherwise it prints a warning and writes nothing. A set counts as empty by the eval type that
    places each task (a task given as Core, then as Open, is in the Open set only).
    """
    core, open_set = _result_sets(results, all_meta)
    return core + open_set if core and open_set else None


def _result_sets(
    results: Sequence[TaskResult], all_meta: Mapping[str, TaskMeta]
) -> tuple[list[TaskResult], list[TaskResult]]:
    """The SI task results of the Core set and of the Open set (`_core_and_open`)."""
    return _core_and_open(results, lambda r: (r.name, r.eval_type), all_meta, lambda r: r.entry)


def single_image_entries(
    task_entries: Sequence[Mapping[str, Any]], all_meta: Mapping[str, TaskMeta]
) -> list[Mapping[str, Any]]:
    """The SI tasks among `data_with_scores.json` entries (each named by `task_name`), chosen and
    ordered as `single_image_subset` chooses and orders task results, so the subset's intervals
    are made over the same tasks, in the same order, as its scores."""
    core, open_set = _core_and_open(
        task_entries, lambda t: (str(t["task_name"]), str(t["eval_type"])), all_meta
    )
    return core + open_set


def _core_and_open(
    items: Sequence[_Item],
    name_and_type: Callable[[_Item], tuple[str, str]],
    all_meta: Mapping[str, TaskMeta],
    row_of: Callable[[_Item], Mapping[str, Any] | None] = lambda _: None,
) -> tuple[list[_Item], list[_Item]]:
    """The SI items of the Core set and of the Open set, each in input order.

    A task named more than once is placed by its later entry's eval type (the official filter
    reads the `collect_task_metadata` dict, where the later entry wins) but listed with every one
    of its entries, as the official `process_subset_results` lists the rows of
    `task_results.json` whose name passed that filter. A row's own `num_input` key, if it has
    one (`row_of` gives the `task_results.json` row an item was read from), stands for the
    metadata's in that filter, the later row's for a repeated name.
    """
    named = [(item, *name_and_type(item)) for item in items]
    final_type = {name: kind for _, name, kind in named}
    final_num_input: dict[str, object] = {}
    for item, name, _ in named:
        if name in all_meta:
            row = row_of(item)
            joined = all_meta[name] if row is None or "num_input" not in row else row
            final_num_input[name] = joined.get("num_input")
    selected = [
        (item, name)
        for item, name, _ in named
        if final_num_input.get(name) == SINGLE_IMAGE_NUM_INPUT
    ]
    return (
        [item for item, name in selected if final_type[name] == "rule"],
        [item for item, name in selected if final_type[name] == "llm"],
    )
