"""The 95% intervals of the MEGA-Bench headline table: the full benchmark's overall, Core and
Open, and the single-image subset's overall, each written the same way, or why it has none.

The full benchmark's intervals are the summary's `intervals` block, the subset's its
`intervals.single_image` block (the same bootstrap run over the subset's tasks). A number shown
without an interval is marked `(no CI)` in its cell and listed under the table with the reason:
a summary written before intervals were recorded has none at all, one written before the
subset's were recorded has the full benchmark's only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vlmscope.leaderboard.headline_intervals import NO_CI, OLD_SINGLE_IMAGE, OLD_SUMMARY, bounds_at
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import number_at, percent_bounds
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY

HEADLINES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Overall", "overall", ("intervals", "overall")),
    ("Core", "core", ("intervals", "core")),
    ("Open", "open", ("intervals", "open")),
    (
        "Single-image overall",
        "single_image_overall",
        ("intervals", SINGLE_IMAGE_KEY, "overall"),
    ),
)
"""(column, the number's key in the summary, where its interval sits), in the table's order."""


def ci_text(scores: Mapping[str, Any], key: str, interval: tuple[str, ...]) -> str:
    """`80.12 - 90.34` in percent, as precise as the scores; `(no CI)` for a number without an
    interval; "" where there is no number."""
    if number_at(scores, key) is None:
        return ""
    bounds = bounds_at(scores, *interval)
    return percent_bounds(bounds.lower, bounds.upper) if bounds else NO_CI


def no_interval_reason(scores: Mapping[str, Any], interval: tuple[str, ...]) -> str:
    """Why the number at `interval` has none: the subset's block is missing from a summary that
    records the full benchmark's, or the summary records no interval at all."""
    block = scores.get("intervals")
    subset = interval[:2] == ("intervals", SINGLE_IMAGE_KEY)
    if (
        subset
        and isinstance(block, Mapping)
        and not isinstance(block.get(SINGLE_IMAGE_KEY), Mapping)
    ):
        return OLD_SINGLE_IMAGE
    return OLD_SUMMARY


def no_interval_lines(records: Mapping[str, SummaryRecord]) -> list[str]:
    """`Single-image overall: model (reason)` for every number the table shows as `(no CI)`,
    column by column, models in the order given."""
    lines = []
    for column, key, interval in HEADLINES:
        for model, record in records.items():
            if ci_text(record.scores, key, interval) == NO_CI:
                reason = no_interval_reason(record.scores, interval)
                lines.append(f"{column}: {model} ({reason})")
    return lines
