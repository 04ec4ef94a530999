"""MEGA-Bench page data: headline scores and the keyword breakdown over five dimensions.

The breakdown is the official `summary_and_keyword_stats` (paper Sec. 4, Fig. 5): per keyword
of a dimension, the mean task score and how many tasks carry it. The single-image subset has its
own copy under `single_image`. Scores are shown as percentages, the headline ones with their 95%
intervals (the summary's `intervals`, the subset's overall its `intervals.single_image`: see
`megabench_headline_ci`) and ranked by band, as the boards are. A run whose subset has no Core
or no Open task has no single-image numbers (the official tool writes no subset files then):
its page says so (`no_single_image_lines`) instead of showing blanks without a reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from vlmscope.leaderboard.headline_intervals import bounds_at, rank_bands
from vlmscope.leaderboard.megabench_headline_ci import HEADLINES, ci_text
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import MISSING, number_at, percent

DIMENSIONS: dict[str, str] = {
    "skills": "Skills",
    "input_format": "Input format",
    "output_format": "Output format",
    "input_num": "Number of visual inputs",
    "app": "Application",
}
HEADLINE_COLUMNS = [
    "Rank",
    "Model",
    "Overall",
    "Overall 95% CI",
    "Core",
    "Core 95% CI",
    "Open",
    "Open 95% CI",
    "Single-image overall",
    "Single-image overall 95% CI",
    "Core setting",
]
NO_SINGLE_IMAGE = (
    "no single-image tasks in this run: the single-image subset needs both a Core and an Open "
    "task, and the official tool writes none otherwise"
)
RANKED_BY = ("overall", "core")
"""The rank band is the overall score's, or Core's for a run without Open tasks."""


def default_models(records: Mapping[str, SummaryRecord], n: int = 3) -> list[str]:
    """The top `n` models by overall score: the comparison a visitor most likely wants."""
    ranked = sorted(records, key=lambda m: -(number_at(records[m].scores, "overall") or -1.0))
    return ranked[:n]


def headline_frame(records: Mapping[str, SummaryRecord]) -> pd.DataFrame:
    """Overall, Core, Open and the single-image overall with their 95% intervals (`(no CI)`
    where the summary records none), ranked as the boards rank: the band of the overall score
    (Core's without Open tasks), one plus the number of models whose whole interval lies above;
    ties in a band by score."""
    ranks = _ranks(records)
    rows = [
        [
            ranks.get(model, MISSING),
            model,
            *(
                cell
                for _, key, interval in HEADLINES
                for cell in (percent(number_at(r.scores, key)), ci_text(r.scores, key, interval))
            ),
            str(r.scores.get("core_setting", "")),
        ]
        for model, r in records.items()
    ]
    frame = pd.DataFrame(rows, columns=HEADLINE_COLUMNS)
    frame = frame.sort_values(
        ["Rank", "Overall", "Core"], ascending=[True, False, False], na_position="last"
    )
    return frame.reset_index(drop=True)


def _ranks(records: Mapping[str, SummaryRecord]) -> dict[str, int]:
    for key in RANKED_BY:
        bounds = {m: b for m, r in records.items() if (b := bounds_at(r.scores, "intervals", key))}
        if bounds:
            return rank_bands(bounds)
    return {}


def keyword_stats(scores: Mapping[str, Any], *, single_image: bool) -> Mapping[str, Any]:
    """The `keyword_stats` block of the full benchmark or of its single-image subset."""
    block = scores.get("single_image" if single_image else "summary_and_keyword_stats")
    stats = block.get("keyword_stats") if isinstance(block, Mapping) else None
    return stats if isinstance(stats, Mapping) else {}


def keyword_frame(
    records: Mapping[str, SummaryRecord],
    models: Sequence[str],
    dimension: str,
    *,
    single_image: bool = False,
) -> pd.DataFrame:
    """Rows: the dimension's keywords (first-seen order); columns: task count, then each model."""
    per_model: dict[str, Mapping[str, Any]] = {}
    for model in models:
        if model in records:
            dim = keyword_stats(records[model].scores, single_image=single_image).get(dimension)
            per_model[model] = dim if isinstance(dim, Mapping) else {}
    keywords: dict[str, int] = {}
    for stats in per_model.values():
        for keyword, entry in stats.items():
            count = number_at(entry, "count")
            keywords.setdefault(str(keyword), int(count) if count is not None else 0)
    rows = [
        [
            keyword,
            count,
            *(percent(number_at(per_model[m].get(keyword), "average_score")) for m in per_model),
        ]
        for keyword, count in keywords.items()
    ]
    return pd.DataFrame(rows, columns=["Keyword", "Tasks", *per_model])


def no_single_image_lines(records: Mapping[str, SummaryRecord], models: Sequence[str]) -> list[str]:
    """`model: no single-image tasks in this run ...` for each of `models` whose summary holds
    no single-image subset (`single_image` is null), in the order given."""
    return [
        f"{model}: {NO_SINGLE_IMAGE}"
        for model in models
        if model in records and not isinstance(records[model].scores.get("single_image"), Mapping)
    ]
