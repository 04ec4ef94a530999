"""SimpleVQA page data: CO / NA / IN / CGA / F with 95% CIs, overall and by group.

The track's summary holds a factuality table (`F`, `CO`, `CGA`, `NA`, `IN`, `n_graded`,
`n_judge_unparseable`, `ci95: {metric: [lower, upper]}`) under `overall` and one per group under
`by_language`, `by_task_category` and `by_domain` (paper Sec. 3, Figs. 4-6). Keys that are
missing show as empty cells, so an older or partial summary still renders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vlmscope.leaderboard.headline_intervals import Bounds, rank_bands
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import MISSING, is_number, number_at, percent, percent_bounds

METRICS = ("CO", "NA", "IN", "CGA", "F")  # the paper's column order
BREAKDOWNS: dict[str, str] = {
    "Overall": "overall",
    "By language": "by_language",
    "By task category": "by_task_category",
    "By domain": "by_domain",
}
OVERALL_GROUP = "all"


@dataclass(frozen=True)
class RatePoint:
    """One bar: a model's rate in a group, in percent, with its 95% interval (None if absent)."""

    model: str
    group: str
    value: float
    lower: float | None
    upper: float | None


def groups_of(scores: Mapping[str, Any], breakdown: str) -> dict[str, Mapping[str, Any]]:
    """The factuality tables of one breakdown, by group name."""
    key = BREAKDOWNS.get(breakdown, breakdown)
    if key == "overall":
        table = scores.get("overall")
        return {OVERALL_GROUP: table if isinstance(table, Mapping) else scores}
    groups = scores.get(key)
    if not isinstance(groups, Mapping):
        return {}
    return {str(g): t for g, t in groups.items() if isinstance(t, Mapping)}


def interval(table: Mapping[str, Any], metric: str) -> tuple[float, float] | None:
    ci = table.get("ci95")
    bounds = ci.get(metric) if isinstance(ci, Mapping) else None
    if isinstance(bounds, list | tuple) and len(bounds) == 2 and all(map(is_number, bounds)):
        return float(bounds[0]), float(bounds[1])
    return None


def factuality_frame(records: Mapping[str, SummaryRecord], breakdown: str) -> pd.DataFrame:
    """One row per (model, group): counts, then each metric in percent beside its 95% CI; within
    a group, models ranked as the boards rank, by F: one plus the number of models whose whole
    F interval lies above (`F rank`; ties in a band by F)."""
    columns = ["Model", "Group", "F rank", "Graded", "Unparseable"]
    for metric in METRICS:
        columns += [metric, f"{metric} 95% CI"]
    rows = []
    bands = _f_bands(records, breakdown)
    for model, record in records.items():
        for group, table in groups_of(record.scores, breakdown).items():
            row: list[object] = [
                model,
                group,
                bands.get((group, model), MISSING),
                _count(table, "n_graded"),
                _count(table, "n_judge_unparseable"),
            ]
            for metric in METRICS:
                bounds = interval(table, metric)
                ci = percent_bounds(*bounds) if bounds else ""
                row += [percent(number_at(table, metric)), ci]
            rows.append(row)
    frame = pd.DataFrame(rows, columns=columns)
    order = {group: i for i, group in enumerate(dict.fromkeys(frame["Group"]))}
    frame["_group"] = frame["Group"].map(order)
    frame = frame.sort_values(
        ["_group", "F rank", "F"], ascending=[True, True, False], kind="stable"
    )
    return frame.drop(columns="_group").reset_index(drop=True)


def _f_bands(records: Mapping[str, SummaryRecord], breakdown: str) -> dict[tuple[str, str], int]:
    """(group, model) -> the model's F rank band among the models of that group."""
    by_group: dict[str, dict[str, Bounds]] = {}
    for model, record in records.items():
        for group, table in groups_of(record.scores, breakdown).items():
            bounds = interval(table, "F")
            if bounds is not None:
                by_group.setdefault(group, {})[model] = Bounds(*bounds)
    return {(g, m): rank for g, found in by_group.items() for m, rank in rank_bands(found).items()}


def rate_points(
    records: Mapping[str, SummaryRecord], breakdown: str, metric: str
) -> list[RatePoint]:
    """The bars of the chart: one metric for every model and group, with intervals."""
    points = []
    for model, record in records.items():
        for group, table in groups_of(record.scores, breakdown).items():
            value = number_at(table, metric)
            if value is None:
                continue
            bounds = interval(table, metric)
            points.append(
                RatePoint(
                    model,
                    group,
                    100 * value,
                    100 * bounds[0] if bounds else None,
                    100 * bounds[1] if bounds else None,
                )
            )
    return points


def _count(table: Mapping[str, Any], key: str) -> float:
    value = number_at(table, key)
    return MISSING if value is None else int(value)


def grading_note(records: Mapping[str, SummaryRecord]) -> str:
    """Which models were graded some other way than the paper's LLM grader, so numbers made
    by the offline match grader are never read as the paper's protocol ("" when none)."""
    other = {
        model: str(protocol)
        for model, record in sorted(records.items())
        if isinstance(grader := record.scores.get("grader"), Mapping)
        and (protocol := grader.get("protocol"))
        and not str(protocol).startswith("llm")
    }
    if not other:
        return ""
    listed = "; ".join(f"{model}: {protocol}" for model, protocol in other.items())
    return f"Not the paper's grading for these models: {listed}."


def ungraded_note(records: Mapping[str, SummaryRecord]) -> str:
    """Models whose rates are n/a because no item was graded, with the summary's reason (their
    cells are empty: an empty cell must not read as a score of 0)."""
    lines = [
        f"{model}: n/a, no item graded ({record.scores.get('note') or 'no reason recorded'})"
        for model, record in sorted(records.items())
        if record.scores.get("n_graded") == 0
    ]
    return "; ".join(lines)
