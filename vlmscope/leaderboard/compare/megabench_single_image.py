"""MEGA-Bench's single-image overall, Core and Open, compared as the summary's own intervals of
them were made.

The summary's `intervals.single_image` is the full benchmark's two-stage bootstrap run over the
single-image tasks alone (`subset_intervals`); the comparison does the same with the shared
queries of those tasks, every model on the same draws, so each pair's differences have paired
intervals and p-values by exactly the method of the full overall, Core and Open (`megabench.py`
computes the rows, this module names them and says why one has no number). The
single-image tasks are those of the `input_num` keyword `1-image` in the macro layout, which is
the subset's own rule (`num_input == "1-image"`, `single_image.py`) over the summary's recorded
keyword tasks. A summary written before the subset's intervals were recorded gets the rows with
no numbers and the reason, as do models that share no single-image task; a number of a set
with no shared single-image task (and the overall without both sets) is a reason, never NaN.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from vlmscope.leaderboard.compare.pairs import PairedNumber
from vlmscope.leaderboard.megabench_headline_ci import no_interval_reason
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.intervals import (
    HEADLINES,
    SINGLE_IMAGE_KEY,
    MacroLayout,
    macro_layout,
)
from vlmscope.tracks.megabench.single_image import SINGLE_IMAGE_NUM_INPUT

LABEL = "single-image overall"
LABELS = {"overall": LABEL, "core": "single-image Core", "open": "single-image Open"}
"""The rows' labels, by the headline each is the subset's version of."""
INTERVAL = ("intervals", SINGLE_IMAGE_KEY, "overall")
NOT_SHARED = "none of the single-image tasks is counted for every model compared"
ONE_SET = "needs Core and Open single-image tasks"
EMPTY = {
    "overall": ONE_SET,
    "core": "no single-image Core task is counted for every model compared",
    "open": "no single-image Open task is counted for every model compared",
}
"""Why a row has no number although the subset has shared queries."""


@dataclass(frozen=True)
class SubsetQueries:
    """The shared queries of the single-image tasks (`task/query` keys, Core tasks first, as
    the subset is aggregated) and their macro layout."""

    keys: tuple[str, ...]
    layout: MacroLayout


def single_image_queries(
    store: ResultStore,
    track: str,
    models: Sequence[str],
    layout: MacroLayout,
    keys: Sequence[str],
    task_of: Mapping[str, str],
) -> SubsetQueries | str:
    """The subset among the shared `keys` (laid out by `layout`, each query's task in
    `task_of`), or why the comparison has no single-image row."""
    old: dict[str, list[str]] = {}
    for model in models:
        scores = store.summary(track, model).scores
        if not _recorded(scores):
            old.setdefault(no_interval_reason(scores, INTERVAL), []).append(model)
    if old:
        return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in old.items())
    members = set(layout.keyword_tasks.get("input_num", {}).get(SINGLE_IMAGE_NUM_INPUT, ()))
    kind = dict(zip(layout.tasks, layout.eval_types, strict=True))
    chosen = sorted(
        (k for k in keys if task_of[k] in members), key=lambda k: kind[task_of[k]] == "llm"
    )
    if not chosen:
        return NOT_SHARED
    counts = Counter(task_of[k] for k in chosen)
    tasks = list(counts)
    subset = macro_layout(tasks, [counts[t] for t in tasks], [kind[t] for t in tasks], {})
    return SubsetQueries(tuple(chosen), subset)


def single_image_numbers(
    subset: SubsetQueries | str, headline: Sequence[PairedNumber] | None
) -> tuple[PairedNumber, ...]:
    """The single-image overall, Core and Open rows of a pair. `headline` holds the subset's
    overall, Core and Open as the full benchmark's rows are made (the same paired draws and
    rules, over the subset's layout), None when `subset` says why there are none."""
    if isinstance(subset, str) or headline is None:
        return tuple(PairedNumber(LABELS[h], None, None, None, note=str(subset)) for h in HEADLINES)
    return tuple(
        replace(row, label=LABELS[h], note=EMPTY[h] if row.estimate is None else row.note)
        for h, row in zip(HEADLINES, headline, strict=True)
    )


def _recorded(scores: Mapping[str, Any]) -> bool:
    block = scores.get("intervals")
    return isinstance(block, Mapping) and isinstance(block.get(SINGLE_IMAGE_KEY), Mapping)
