"""95% intervals of MEGA-Bench's headline numbers, resampled as the benchmark aggregates.

MEGA-Bench averages a task's query scores into the task's score and task scores into Core,
Open, overall and each keyword of the five dimensions (`aggregation.py`, `keywords.py`). The
intervals follow that structure (`vlmscope.stats.macro_bootstrap`): in each round, tasks are
drawn with replacement within the macro average (Core tasks among Core tasks, Open among Open,
so every round keeps the benchmark's mix) and queries with replacement within each drawn task,
with the task means shrunk so query noise is not counted twice; Core, Open, overall and every
keyword are then averaged over the round's copies of their tasks. The point is the official
number itself (a query's score counts as the official scorer counts it: below 0 adds 0).

`MacroLayout` is that aggregation as arrays, built from per-task query scores and the task
metadata; the summary stores the task lists it was built from (`tasks`, `keyword_tasks`), so
`vlmscope compare` rebuilds the same averages from two models' details. The single-image
subset's numbers are macro averages over a subset of the same tasks, so its block
(`subset_intervals`, the summary's `intervals.single_image`) is the same bootstrap run over
that subset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from vlmscope.stats.intervals import percentile_interval
from vlmscope.stats.macro_bootstrap import macro_bootstrap
from vlmscope.tracks.megabench.keywords import KEYWORD_DIMENSIONS, TaskMeta

ROUNDS = 1000
SEED = 0
LEVEL = 0.95
HEADLINES: tuple[str, ...] = ("overall", "core", "open")
SUBSET_KEYS: tuple[str, ...] = (*HEADLINES, "keywords")
"""What a subset's block keeps: its method, rounds and task lists are the full block's."""
SINGLE_IMAGE_KEY = "single_image"
"""Where the intervals block holds the single-image subset's (`subset_intervals`)."""
METHOD = (
    "two-stage bootstrap respecting MEGA-Bench's macro averages: per round, tasks drawn with "
    "replacement within the average (Core among Core, Open among Open) and queries with "
    "replacement within each drawn task, task means shrunk so query noise counts once "
    "(Davison & Hinkley 1997, Sec. 3.8); 95% percentile interval"
)


@dataclass(frozen=True)
class MacroLayout:
    """The tasks in query order with their queries' sizes and eval types, and every macro
    average as a row of task membership: the headlines first, then one per keyword."""

    tasks: tuple[str, ...]
    sizes: npt.NDArray[np.int64]
    eval_types: tuple[str, ...]
    names: tuple[str, ...]
    """`overall`, `core`, `open`, then `<dimension>/<keyword>`."""
    groups: npt.NDArray[np.bool_]
    keyword_tasks: Mapping[str, Mapping[str, tuple[str, ...]]]

    @property
    def strata(self) -> tuple[str, ...]:
        """Core and Open tasks are drawn among their own kind."""
        return tuple("open" if kind == "llm" else "core" for kind in self.eval_types)

    def group(self, name: str) -> int:
        return self.names.index(name)


def counted(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """What a query adds to its task's score officially: a score below 0 (or NaN) adds 0."""
    values = np.asarray(scores, dtype=np.float64)
    return np.where(values >= 0, values, 0.0)


def keyword_membership(
    tasks: Sequence[str], meta: Mapping[str, TaskMeta]
) -> dict[str, dict[str, tuple[str, ...]]]:
    """dimension -> keyword -> its tasks among `tasks`, by `keywords.keyword_stats`'s rules:
    every skill of a task, and the one non-empty value of each other dimension."""
    members: dict[str, dict[str, list[str]]] = {"skills": {}}
    members.update({dimension: {} for dimension, _ in KEYWORD_DIMENSIONS})
    for task in tasks:
        entry = meta.get(task)
        if entry is None:
            continue
        for skill in entry.get("skills", []):
            members["skills"].setdefault(skill, []).append(task)
        for dimension, key in KEYWORD_DIMENSIONS:
            if value := entry.get(key):
                members[dimension].setdefault(value, []).append(task)
    return {d: {k: tuple(v) for k, v in kws.items()} for d, kws in members.items()}


def macro_layout(
    tasks: Sequence[str],
    sizes: Sequence[int],
    eval_types: Sequence[str],
    keyword_tasks: Mapping[str, Mapping[str, Sequence[str]]],
) -> MacroLayout:
    """The layout of tasks given in query order (`sizes` queries each)."""
    index = {task: i for i, task in enumerate(tasks)}
    rows = [
        np.ones(len(tasks), dtype=bool),
        np.array([kind != "llm" for kind in eval_types]),
        np.array([kind == "llm" for kind in eval_types]),
    ]
    names = list(HEADLINES)
    for dimension, keywords in keyword_tasks.items():
        for keyword, members in keywords.items():
            row = np.zeros(len(tasks), dtype=bool)
            row[[index[t] for t in members if t in index]] = True
            rows.append(row)
            names.append(f"{dimension}/{keyword}")
    return MacroLayout(
        tasks=tuple(tasks),
        sizes=np.asarray(sizes, dtype=np.int64),
        eval_types=tuple(eval_types),
        names=tuple(names),
        groups=np.array(rows, dtype=bool).reshape(len(rows), len(tasks)),
        keyword_tasks={
            d: {k: tuple(v) for k, v in kws.items()} for d, kws in keyword_tasks.items()
        },
    )


def headline_intervals(
    task_entries: Sequence[Mapping[str, Any]],
    meta: Mapping[str, TaskMeta],
    *,
    rounds: int = ROUNDS,
    seed: int = SEED,
) -> dict[str, Any]:
    """The summary's `intervals` block for one model: [lower, upper] of overall, Core, Open and
    each keyword (None where the average has no task), how they were made, and the task lists
    they average over. `task_entries` are the counted tasks of `data_with_scores.json`."""
    tasks = [str(t["task_name"]) for t in task_entries]
    keyword_tasks = keyword_membership(tasks, meta)
    layout = macro_layout(
        tasks,
        [len(t["query_response"]) for t in task_entries],
        [str(t["eval_type"]) for t in task_entries],
        keyword_tasks,
    )
    block: dict[str, Any] = {"method": METHOD, "rounds": rounds, "seed": seed, "level": LEVEL}
    bounds: list[list[float] | None] = [None] * len(layout.names)
    if tasks:
        scores = counted([q["scores"]["query"] for t in task_entries for q in t["query_response"]])
        draws = macro_bootstrap(
            scores,
            layout.sizes,
            layout.groups,
            rounds=rounds,
            rng=np.random.default_rng(seed),
            strata=layout.strata,
        )
        lower, upper = percentile_interval(draws.combine([1.0])[1][:, :, 0], LEVEL)
        bounds = [
            None if np.isnan(lo) else [float(lo), float(hi)]
            for lo, hi in zip(lower, upper, strict=True)
        ]
    block.update({name: bounds[layout.group(name)] for name in HEADLINES})
    if layout.groups[layout.group("core")].any() != layout.groups[layout.group("open")].any():
        block["overall"] = None  # officially there is no overall without both sets
    block["keywords"] = {
        dimension: {k: bounds[layout.group(f"{dimension}/{k}")] for k in keywords}
        for dimension, keywords in keyword_tasks.items()
    }
    block["tasks"] = {
        "core": [t for t, kind in zip(tasks, layout.eval_types, strict=True) if kind != "llm"],
        "open": [t for t, kind in zip(tasks, layout.eval_types, strict=True) if kind == "llm"],
    }
    block["keyword_tasks"] = {
        d: {k: list(v) for k, v in kws.items()} for d, kws in keyword_tasks.items()
    }
    return block


def subset_intervals(
    task_entries: Sequence[Mapping[str, Any]],
    meta: Mapping[str, TaskMeta],
    *,
    rounds: int = ROUNDS,
    seed: int = SEED,
) -> dict[str, Any]:
    """The intervals of a subset of the counted tasks (the single-image subset): overall, Core,
    Open and each keyword over `task_entries` alone, by `headline_intervals`'s bootstrap with
    the same rounds and seed, so the subset's keyword scores carry intervals made exactly as the
    full benchmark's are."""
    block = headline_intervals(task_entries, meta, rounds=rounds, seed=seed)
    return {key: block[key] for key in SUBSET_KEYS}
