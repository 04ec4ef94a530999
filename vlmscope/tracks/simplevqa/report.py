"""One model's SimpleVQA result, and its summary rendered as Markdown tables.

The summary dataset is the source of truth; the tables are a view of it for people reading a
results folder, with rates in percent and their 95% CIs, one table per breakdown, as the paper's
figures group them. A rate of a group with nothing graded is null in the summary and shows as
"n/a (0 graded)", never as 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.atomic_files import write_text_atomic
from vlmscope.shown_numbers import percent_text

TABLES_FILE = "simplevqa_tables.md"

_ORDER = ("CO", "NA", "IN", "CGA", "F")  # the paper's column order
_SECTIONS = (
    ("By language", "by_language"),
    ("By task category", "by_task_category"),
    ("By domain", "by_domain"),
)


@dataclass(frozen=True)
class SimpleVQAReport:
    """The summary mapping of one model's run (rates, bootstrap CIs, breakdowns, counts),
    computed once by `SimpleVQATrack.summarize`; the tables are rendered from it, so writing
    them never bootstraps again and always shows the stored numbers."""

    scores: Mapping[str, Any]

    def summary(self) -> dict[str, Any]:
        return dict(self.scores)

    def write_files(self, out_dir: Path) -> None:
        write_text_atomic(Path(out_dir) / TABLES_FILE, tables_markdown(self.scores))


def tables_markdown(summary: Mapping[str, Any]) -> str:
    lines = ["# SimpleVQA factuality", ""]
    protocol = summary.get("grader", {}).get("protocol")
    if protocol:
        lines += [f"Grading: {protocol}.", ""]
    if summary.get("note"):
        lines += [f"Note: {summary['note']}.", ""]
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
            f"{_rate(atomic['original_accuracy'], 'pairs', atomic['n_pairs'])}, atomic "
            f"{_rate(atomic['atomic_accuracy'], 'pairs', atomic['n_pairs'])}.",
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
        cells = [_with_ci(table[m], ci.get(m), table["n_graded"]) for m in _ORDER]
        lines.append(
            f"| {name} | {table['n_graded']} | {table['n_judge_unparseable']} | "
            + " | ".join(cells)
            + " |"
        )
    return [*lines, ""]


def _with_ci(value: float | None, ci: list[float] | None, n_graded: int) -> str:
    if value is None or ci is None:
        return _rate(value, "graded", n_graded)
    return f"{percent_text(value)} [{percent_text(ci[0])}, {percent_text(ci[1])}]"


def _rate(value: float | None, counted: str, n: int) -> str:
    """A rate in percent, or why there is none ("n/a (0 graded)")."""
    return f"n/a ({n} {counted})" if value is None else percent_text(value)
