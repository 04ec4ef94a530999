"""Each MEGA-Bench keyword score with its 95% interval, or the reason it has none.

A keyword's score is the mean of its tasks' scores, one of the macro averages the summary's
two-stage bootstrap already resamples (`vlmscope.tracks.megabench.intervals`: tasks within the
average, queries within each drawn task); its interval is read from the summary
(`intervals.keywords`), the same rounds as the overview's Core, Open and overall.

A keyword averaged over fewer than `MIN_TASKS` tasks is shown without one: resampling n tasks
spreads their mean by only (n - 1) / n of its variance, and with one task it cannot say at all
how much the choice of tasks moves the score, so the interval would be too narrow to trust. The
single-image subset's keywords read theirs from the subset's own block (`intervals.single_image`,
the same bootstrap over the subset's tasks). A summary written before keyword intervals, or before
the subset's, were recorded has none; each such score says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vlmscope.leaderboard.headline_intervals import (
    NO_CI,
    OLD_SINGLE_IMAGE,
    OLD_SUMMARY,
    Bounds,
    bounds_at,
)
from vlmscope.leaderboard.megabench_view import keyword_stats
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import number_at
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY

MIN_TASKS = 5
SINGLE_IMAGE = OLD_SINGLE_IMAGE


TOO_FEW = (
    f"an interval needs at least {MIN_TASKS} tasks, so that resampling them can say how much "
    "their choice moves the score"
)


def tasks_text(tasks: int) -> str:
    return f"{tasks} task{'s' if tasks != 1 else ''}"


@dataclass(frozen=True)
class KeywordScore:
    """One model's score on one keyword, in percent, with its interval or why it has none."""

    model: str
    keyword: str
    tasks: int
    """Tasks the keyword's score averages (the official `count`)."""
    value: float
    bounds: Bounds | None
    reason: str = ""

    def interval_text(self) -> str:
        """`80.12 - 90.34`, as the headline table writes intervals, or `(no CI)`."""
        if self.bounds is None:
            return NO_CI
        return f"{self.bounds.lower:.2f} - {self.bounds.upper:.2f}"

    def hover(self) -> str:
        """What the chart shows on hover (plain text, to be escaped for Plotly)."""
        tasks = tasks_text(self.tasks)
        if self.bounds is None:
            return f"{self.keyword}: {self.value:.2f}, no interval ({self.reason}); {tasks}"
        return f"{self.keyword}: {self.value:.2f}, 95% CI {self.interval_text()}; {tasks}"


def keyword_scores(
    records: Mapping[str, SummaryRecord],
    models: Sequence[str],
    dimension: str,
    *,
    single_image: bool = False,
) -> list[KeywordScore]:
    """Every score of `models` on the dimension's keywords (module doc), model by model, each
    model's keywords in the order of its summary; a keyword a model lacks is left out."""
    found = []
    for model in models:
        record = records.get(model)
        if record is None:
            continue
        stats = keyword_stats(record.scores, single_image=single_image).get(dimension)
        for keyword, entry in (stats if isinstance(stats, Mapping) else {}).items():
            value = number_at(entry, "average_score")
            if value is None:
                continue
            tasks = int(number_at(entry, "count") or 0)
            bounds, reason = _bounds(record.scores, dimension, str(keyword), tasks, single_image)
            found.append(KeywordScore(model, str(keyword), tasks, 100 * value, bounds, reason))
    return found


def _bounds(
    scores: Mapping[str, Any], dimension: str, keyword: str, tasks: int, single_image: bool
) -> tuple[Bounds | None, str]:
    if tasks < MIN_TASKS:
        return None, TOO_FEW
    block = ("intervals", SINGLE_IMAGE_KEY) if single_image else ("intervals",)
    bounds = bounds_at(scores, *block, "keywords", dimension, keyword)
    if bounds is None:
        full = bounds_at(scores, "intervals", "keywords", dimension, keyword)
        return None, SINGLE_IMAGE if single_image and full is not None else OLD_SUMMARY
    return Bounds(100 * bounds.lower, 100 * bounds.upper), ""


def with_intervals(frame: pd.DataFrame, scores: Sequence[KeywordScore]) -> pd.DataFrame:
    """`frame` (a `keyword_frame`) with a `<model> 95% CI` column after each model's column."""
    text = {(s.model, s.keyword): s.interval_text() for s in scores}
    shown = frame.copy()
    for model in [c for c in frame.columns if c not in ("Keyword", "Tasks")]:
        column = [text.get((model, str(k)), "") for k in frame["Keyword"]]
        shown.insert(shown.columns.get_loc(model) + 1, f"{model} 95% CI", column)
    return shown


def no_interval_lines(scores: Sequence[KeywordScore]) -> list[str]:
    """`<keyword> (<n> tasks): <models> (<reason>)`, one line per keyword, task count and
    reason, as the overview lists the numbers it shows without an interval."""
    grouped: dict[tuple[str, int, str], list[str]] = {}
    for s in scores:
        if s.bounds is None:
            grouped.setdefault((s.keyword, s.tasks, s.reason), []).append(s.model)
    return [
        f"{keyword} ({tasks_text(tasks)}): {', '.join(models)} ({reason})"
        for (keyword, tasks, reason), models in grouped.items()
    ]
