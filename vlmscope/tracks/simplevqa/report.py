"""Render a SimpleVQA summary as Markdown tables, for people reading a results folder.

The summary dataset is the source of truth; this is a view of it with rates in percent and
their 95% CIs, one table per breakdown, as the paper's figures group them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ORDER = ("CO", "NA", "IN", "CGA", "F")  # the paper's column order
_SECTIONS = (
    ("By language", "by_language"),
    ("By task category", "by_task_category"),
    ("By domain", "by_domain"),
)


def tables_markdown(summary: Mapping[str, Any]) -> str:
    lines = ["# SimpleVQA factuality", ""]
    lines += _table("Overall", {"all": summary["overall"]})
    for title, key in _SECTIONS:
        lines += _table(title, summary.get(key, {}))
    outcomes = summary.get("outcomes", {})
    lines += ["## Outcomes", "", *[f"- {k}: {v}" for k, v in outcomes.items()], ""]
    atomic = summary.get("atomic")
    if atomic:
        table = atomic["table"]
        lines += [
            "## Atomic questions",
            "",
            f"Pairs: {atomic['n_pairs']} (unpaired: {atomic['n_unpaired']}); accuracy original "
            f"{_pct(atomic['original_accuracy'])}, atomic {_pct(atomic['atomic_accuracy'])}.",
            "",
            "| | atomic correct | atomic failed |",
            "| --- | --- | --- |",
            f"| original correct | {table['original_correct']['atomic_correct']} | "
            f"{table['original_correct']['atomic_failed']} |",
            f"| original failed | {table['original_failed']['atomic_correct']} (knowledge/reasoning) | "
            f"{table['original_failed']['atomic_failed']} (perception) |",
            "",
        ]
    return "\n".join(lines)


def _table(title: str, groups: Mapping[str, Mapping[str, Any]]) -> list[str]:
    header = ["group", "n graded", "unparseable", *_ORDER]
    lines = [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for name, table in groups.items():
        ci = table.get("ci95") or {}
        cells = [_with_ci(table[m], ci.get(m)) for m in _ORDER]
        lines.append(
            f"| {name} | {table['n_graded']} | {table['n_judge_unparseable']} | "
            + " | ".join(cells)
            + " |"
        )
    return [*lines, ""]


def _with_ci(value: float, ci: list[float] | None) -> str:
    return _pct(value) if ci is None else f"{_pct(value)} [{_pct(ci[0])}, {_pct(ci[1])}]"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"
