"""MEGA-Bench's single-image overall, compared as the summary's own interval of it was made.

The summary's `intervals.single_image` is the full benchmark's two-stage bootstrap run over the
single-image tasks alone (`subset_intervals`); the comparison does the same with the shared
queries of those tasks, every model on the same draws, so the pair's difference has a paired
interval and a p-value by exactly the method of the full overall (`megabench.py`). The
single-image tasks are those of the `input_num` keyword `1-image` in the macro layout, which is
the subset's own rule (`num_input == "1-image"`, `single_image.py`) over the summary's recorded
keyword tasks. A summary written before the subset's intervals were recorded gets the row with
no numbers and the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlmscope.leaderboard.compare.pairs import PairedNumber
from vlmscope.leaderboard.megabench_headline_ci import no_interval_reason
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.stats.intervals import Interval
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY, MacroLayout, macro_layout
from vlmscope.tracks.megabench.single_image import SINGLE_IMAGE_NUM_INPUT

LABEL = "single-image overall"
INTERVAL = ("intervals", SINGLE_IMAGE_KEY, "overall")
NOT_SHARED = "none of the single-image tasks is counted for every model compared"
ONE_SET = "needs Core and Open single-image tasks"


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


def single_image_number(
    subset: SubsetQueries | str,
    point: np.ndarray | None,
    estimates: Sequence[Interval | None],
    i: int,
    j: int,
) -> PairedNumber:
    """The row of the pair (models `i`, `j`): the subset's overall of each with the paired
    difference (`point` and `estimates` from the subset's draws), or why there is none."""
    if isinstance(subset, str) or point is None:
        return PairedNumber(LABEL, None, None, None, note=str(subset))
    if not {"rule", "llm"} <= set(subset.layout.eval_types):
        return PairedNumber(LABEL, None, None, None, note=ONE_SET)
    g = subset.layout.group("overall")
    a, b = point[g, i], point[g, j]
    return PairedNumber(LABEL, float(a), float(b), estimates[g])


def _recorded(scores: Mapping[str, Any]) -> bool:
    block = scores.get("intervals")
    return isinstance(block, Mapping) and isinstance(block.get(SINGLE_IMAGE_KEY), Mapping)
