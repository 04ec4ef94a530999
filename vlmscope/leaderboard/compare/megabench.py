"""MEGA-Bench, compared as it aggregates: Core, Open, overall, every keyword and the
single-image overall, Core and Open, paired.

Each model's counted queries are the ones its summary counts (Core tasks of its chosen prompt
setting, Open tasks with CoT), keyed `task/query`. The queries every compared model has are
laid out task by task, and one two-stage bootstrap (`vlmscope.stats.macro_bootstrap`: tasks
drawn within Core and within Open, queries within each drawn task) scores every model on the
same draws, so each pair's difference has a paired interval and a p-value, and the pairwise
matrix of many models comes from one set of rounds. The macro averages are the summary's own
(its `intervals.tasks` and `keyword_tasks` say which tasks each averages; a summary written
without them falls back to the details' eval types and the packaged task metadata). With the
same queries on both sides the point difference is the difference of the two summaries. The
single-image overall, Core and Open are the same bootstrap over the single-image tasks alone
(`megabench_single_image.py`), as the summary's own intervals of them are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vlmscope.leaderboard.compare.alignment import align
from vlmscope.leaderboard.compare.megabench_single_image import (
    SubsetQueries,
    single_image_numbers,
    single_image_queries,
)
from vlmscope.leaderboard.compare.pairs import Compared, ListTable, PairComparison, PairedNumber
from vlmscope.leaderboard.compare.source import model_columns
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.values import is_number
from vlmscope.stats.intervals import Interval, percentile_interval, two_sided_p
from vlmscope.stats.macro_bootstrap import MacroDraws, macro_bootstrap
from vlmscope.tracks.megabench.intervals import (
    HEADLINES,
    METHOD,
    MacroLayout,
    counted,
    keyword_membership,
    macro_layout,
)
from vlmscope.tracks.megabench.keywords import load_task_meta

LABELS = {"overall": "overall", "core": "Core", "open": "Open"}
MOVERS = 5
"""Tasks listed each way among those that move most."""


class Counted:
    """One model's counted queries: `task/query` -> score, the tasks' eval types, and the
    keyword membership its summary records (None when it records none)."""

    def __init__(self, store: ResultStore, track: str, model: str) -> None:
        scores = store.summary(track, model).scores
        found = scores.get("intervals")
        block: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        lists = block.get("tasks") if isinstance(block.get("tasks"), Mapping) else None
        self.keyword_tasks = block.get("keyword_tasks") if lists else None
        with_cot = scores.get("core_setting", "with_cot") != "without_cot"
        columns = ["sample_id", "scores"] + ([] if lists else ["extra"])
        self.eval_types: dict[str, str] = {}
        if lists:
            self.eval_types = {t: "rule" for t in lists.get("core", [])}
            self.eval_types.update({t: "llm" for t in lists.get("open", [])})
        self.scores: dict[str, float] = {}
        self.task_of: dict[str, str] = {}
        found = model_columns(store, track, model, columns)
        extras = found.get("extra") or [{}] * len(found["sample_id"])
        for sample_id, scored, extra in zip(
            found["sample_id"], found["scores"], extras, strict=True
        ):
            # `task/query`, `:no_cot` added without CoT (MegaBenchTrack.samples); the id says
            # what its meta says, without decoding the meta of thousands of rows
            key, _, setting = str(sample_id).partition(":")
            task = key.rpartition("/")[0]
            if not lists:
                self.eval_types.setdefault(task, str(extra.get("eval_type", "rule")))
            kind = self.eval_types.get(task)
            cot = setting != "no_cot"
            if kind is None or cot != (with_cot if kind != "llm" else True):
                continue  # a task or prompt setting the summary does not count
            value = scored.get("query_score")
            self.scores[key] = float(value) if is_number(value) else 0.0
            self.task_of[key] = task


def compare_megabench(
    store: ResultStore, track: str, models: Sequence[str], *, rounds: int, seed: int
) -> Compared:
    """Every pair of `models` (in order), track notes, and the queries each model lacks."""
    counted_by = {m: Counted(store, track, m) for m in models}
    alignment = align({m: list(c.scores) for m, c in counted_by.items()})
    notes = list(alignment.notes("queries"))
    if not alignment.shared:
        raise ValueError("no query is counted for every model compared")
    first = counted_by[models[0]]
    tasks = list(dict.fromkeys(first.task_of[k] for k in alignment.shared))
    position = {task: n for n, task in enumerate(tasks)}
    keys = sorted(alignment.shared, key=lambda k: (position[first.task_of[k]], _query(k)))
    layout, layout_note = _layout(counted_by, models, tasks, keys)
    notes += layout_note
    draws = _draws(counted_by, models, keys, layout, rounds=rounds, seed=seed)
    pairs = [(i, j) for i in range(len(models)) for j in range(i + 1, len(models))]
    estimates = _pair_estimates(draws, pairs, len(models))
    subset = single_image_queries(store, track, models, layout, keys, first.task_of)
    si_rows: list[tuple[PairedNumber, ...] | None] = [None for _ in pairs]
    if isinstance(subset, SubsetQueries):
        si_draws = _draws(counted_by, models, subset.keys, subset.layout, rounds=rounds, seed=seed)
        si_estimates = _pair_estimates(si_draws, pairs, len(models))
        si_rows = [
            _numbers(subset.layout, si_draws.point, si_estimates[p], i, j)[: len(HEADLINES)]
            for p, (i, j) in enumerate(pairs)
        ]
    items = _items_text(layout, len(keys))
    method = (
        f"{METHOD}; {rounds} rounds, seed {seed}; the single-image overall, Core and Open by the "
        "same bootstrap over the single-image tasks alone; difference = first model - second"
    )
    comparisons = [
        PairComparison(
            track=track,
            a=models[i],
            b=models[j],
            items=items,
            method=method,
            numbers=_with_single_image(
                _numbers(layout, draws.point, estimates[p], i, j),
                single_image_numbers(subset, si_rows[p]),
            ),
            tables=(
                _movers(layout, draws.task_means[:, i] - draws.task_means[:, j], models, i, j),
            ),
        )
        for p, (i, j) in enumerate(pairs)
    ]
    return Compared(comparisons, notes, alignment.missing)


def _draws(
    counted_by: Mapping[str, Counted],
    models: Sequence[str],
    keys: Sequence[str],
    layout: MacroLayout,
    *,
    rounds: int,
    seed: int,
) -> MacroDraws:
    """Every model's macro averages over the same bootstrap rounds of `keys` (module doc)."""
    scores = np.array([[counted_by[m].scores[k] for m in models] for k in keys])
    return macro_bootstrap(
        counted(scores),
        layout.sizes,
        layout.groups,
        rounds=rounds,
        rng=np.random.default_rng(seed),
        strata=layout.strata,
    )


def _with_single_image(
    numbers: tuple[PairedNumber, ...], single: tuple[PairedNumber, ...]
) -> tuple[PairedNumber, ...]:
    """The single-image rows among the headline numbers, after overall, Core and Open."""
    return (*numbers[: len(HEADLINES)], *single, *numbers[len(HEADLINES) :])


def _query(key: str) -> int:
    tail = key.rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _layout(
    counted_by: Mapping[str, Counted], models: Sequence[str], tasks: list[str], keys: list[str]
) -> tuple[MacroLayout, list[str]]:
    """The macro averages over the shared tasks, from the first model's summary."""
    first = counted_by[models[0]]
    notes = []
    membership = first.keyword_tasks
    if not isinstance(membership, Mapping):
        meta = load_task_meta()
        membership = keyword_membership(tasks, meta)
        notes.append(
            "keywords from the packaged MEGA-Bench task metadata: the summaries do not record "
            "their keyword tasks"
            + ("" if all(t in meta for t in tasks) else " (some tasks unknown to it)")
        )
    elif any(counted_by[m].keyword_tasks != membership for m in models[1:]):
        notes.append(
            f"the summaries group tasks into keywords differently; {models[0]}'s grouping is used"
        )
    counts = Counter(first.task_of[k] for k in keys)
    sizes = [counts[t] for t in tasks]
    layout = macro_layout(tasks, sizes, [first.eval_types[t] for t in tasks], membership)
    return layout, notes


def _pair_estimates(
    draws: MacroDraws, pairs: list[tuple[int, int]], n: int
) -> list[list[Interval | None]]:
    """Per pair, per group: the difference first - second with its interval and p-value."""
    weights = np.zeros((len(pairs), n))
    for row, (i, j) in enumerate(pairs):
        weights[row, i], weights[row, j] = 1.0, -1.0
    point, rounds = draws.combine(weights)  # G x K, R x G x K
    lower, upper = percentile_interval(rounds)
    p = two_sided_p(rounds)
    return [
        [
            None
            if np.isnan(point[g, k])
            else Interval(
                float(point[g, k]), float(lower[g, k]), float(upper[g, k]), float(p[g, k])
            )
            for g in range(point.shape[0])
        ]
        for k in range(len(pairs))
    ]


def _numbers(
    layout: MacroLayout, point: np.ndarray, estimates: list[Interval | None], i: int, j: int
) -> tuple[PairedNumber, ...]:
    numbers = []
    empty = {"core": "no Core task", "open": "no Open task", "overall": "needs Core and Open tasks"}
    for g, name in enumerate(layout.names):
        section, _, keyword = name.rpartition("/")
        a, b, estimate = point[g, i], point[g, j], estimates[g]
        missing = name in HEADLINES and (
            estimate is None or (name == "overall" and not _both_sets(layout))
        )
        numbers.append(
            PairedNumber(
                label=LABELS.get(name, keyword),
                a=None if missing or np.isnan(a) else float(a),
                b=None if missing or np.isnan(b) else float(b),
                estimate=None if missing else estimate,
                section=section,
                note=empty.get(name, "") if missing else _no_task(estimate),
            )
        )
    return tuple(numbers)


def _no_task(estimate: Interval | None) -> str:
    return "none of its tasks is counted for both" if estimate is None else ""


def _both_sets(layout: MacroLayout) -> bool:
    return bool(
        layout.groups[layout.group("core")].any() and layout.groups[layout.group("open")].any()
    )


def _movers(
    layout: MacroLayout, diff: np.ndarray, models: Sequence[str], i: int, j: int
) -> ListTable:
    """The tasks whose score moves most between the two, each way (percent points)."""
    order = np.argsort(-diff, kind="stable")
    ahead = [t for t in order if diff[t] > 0][:MOVERS]
    behind = [t for t in order[::-1] if diff[t] < 0][:MOVERS]
    rows: list[tuple[Any, ...]] = [
        (
            models[i] if diff[t] > 0 else models[j],
            layout.tasks[t],
            _kind(layout, t),
            int(layout.sizes[t]),
            round(100 * float(diff[t]), 2),
        )
        for t in [*ahead, *behind]
    ]
    return ListTable(
        title=f"Tasks that move most ({models[i]} - {models[j]}, task score in points)",
        columns=("ahead", "task", "set", "queries", "difference"),
        rows=tuple(rows),
    )


def _kind(layout: MacroLayout, task: int) -> str:
    return "Open" if layout.eval_types[task] == "llm" else "Core"


def _items_text(layout: MacroLayout, n_queries: int) -> str:
    n_open = sum(1 for kind in layout.eval_types if kind == "llm")
    n_core = len(layout.tasks) - n_open
    return (
        f"{n_queries} queries in {len(layout.tasks)} tasks ({n_core} Core, {n_open} Open), "
        "counted for every model compared"
    )
