"""A comparison as text for a terminal, as Markdown for a model card, and as matrix cells.

Two models: every track's paired numbers (each model's value, the difference or probability
with its 95% interval, the p-value), the breakdowns, the lists and the notes. More models: per
track the pairwise matrix of its first headline number (row model against column model); every
pair's full comparison is in the JSON. Scores and probabilities are in percent, ratings in
points; a number without an estimate shows why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlmscope.leaderboard.compare.pairs import (
    POINTS,
    PROBABILITY,
    ListTable,
    PairComparison,
    PairedNumber,
    TrackComparison,
)
from vlmscope.leaderboard.compare.run import CompareReport
from vlmscope.shown_numbers import RATING_DIGITS, percent_text, rating_number
from vlmscope.stats.intervals import Interval

LIST_ROWS = 15
"""Rows of a list (disagreeing prompts, ...) shown in text; the JSON has them all."""


def scaled(value: float | None, unit: str) -> str:
    """A model's value or an estimate in display units: percent for scores and probabilities."""
    if value is None:
        return "-"
    return f"{rating_number(value):.{RATING_DIGITS}f}" if unit == POINTS else percent_text(value)


def estimate_text(number: PairedNumber, signed: bool = True) -> str:
    """`+12.50 [3.10, 21.00]`, or why there is no estimate."""
    estimate = number.estimate
    if estimate is None:
        return f"n/a ({number.note})" if number.note else "n/a"
    sign = "+" if signed and number.unit != PROBABILITY else ""
    value = scaled(estimate.value, number.unit)
    if sign and not value.startswith("-"):  # as shown: what rounds to 0 is +0.00
        value = sign + value
    return f"{value} [{scaled(estimate.lower, number.unit)}, {scaled(estimate.upper, number.unit)}]"


def p_text(estimate: Interval | None) -> str:
    if estimate is None or estimate.p_value is None:
        return ""
    return "<0.001" if estimate.p_value < 0.001 else f"{estimate.p_value:.3f}"


def number_rows(pair: PairComparison, section: str = "") -> list[list[str]]:
    """The rows of one section: label, A, B, estimate, p."""
    return [
        [n.label, scaled(n.a, n.unit), scaled(n.b, n.unit), estimate_text(n), p_text(n.estimate)]
        for n in pair.numbers
        if n.section == section
    ]


def number_header(pair: PairComparison) -> list[str]:
    return ["number", pair.a, pair.b, "difference or probability [95% CI]", "p"]


def sections(pair: PairComparison) -> list[str]:
    return list(dict.fromkeys(n.section for n in pair.numbers if n.section))


def primary(pair: PairComparison) -> PairedNumber | None:
    """The number a matrix shows: the first headline number with an estimate."""
    return next((n for n in pair.headline() if n.estimate is not None), None)


def matrix(track: TrackComparison) -> tuple[str, list[list[str]]]:
    """The primary number of every pair as a square table: row model against column model
    (a difference row - column, or P(row beats column)); the label says which number."""
    label = ""
    models = list(track.models)
    cells = [["" for _ in models] for _ in models]
    for pair in track.pairs:
        number = primary(pair)
        i, j = models.index(pair.a), models.index(pair.b)
        if number is None or number.estimate is None:
            missing = next(iter(pair.headline()), None)  # its note says why there is none
            cells[i][j] = cells[j][i] = "n/a" if missing is None else estimate_text(missing)
            continue
        label = label or (
            "P(row model beats column model)"
            if number.unit == PROBABILITY
            else f"{number.label}: row model - column model"
        )
        cells[i][j] = estimate_text(number)
        cells[j][i] = estimate_text(_mirrored(number))
    label = label or "no pair has a number with an interval (each cell says why)"
    return label, [[m, *row] for m, row in zip(models, cells, strict=True)]


def _mirrored(number: PairedNumber) -> PairedNumber:
    """The same number seen from the other model: minus a difference, 1 - a probability."""
    e = number.estimate
    assert e is not None
    if number.unit == PROBABILITY:
        flipped = Interval(1 - e.value, 1 - e.upper, 1 - e.lower, e.p_value)
    else:
        flipped = Interval(-e.value, -e.upper, -e.lower, e.p_value)
    return PairedNumber(number.label, number.b, number.a, flipped, number.unit, number.section)


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> str:
    """Columns padded to their widest cell; the first left-aligned, the rest right-aligned."""
    cells = [[str(c) for c in header], *[[_cell(c) for c in row] for row in rows]]
    widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
    lines = []
    for row in cells:
        padded = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append(indent + "  ".join(padded).rstrip())
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 0.001 and value else f"{value:g}"
    return str(value)


def text_report(report: CompareReport) -> str:
    """The terminal view (module doc)."""
    blocks = []
    for track in report.tracks:
        blocks.append(_track_text(track, full=len(report.models) == 2))
    return "\n\n".join(blocks) + "\n"


def _track_text(track: TrackComparison, *, full: bool) -> str:
    lines = [f"== {track.title} ({track.track}) =="]
    if track.skipped:
        lines.append(f"  not compared: {track.skipped}")
    elif full:
        for pair in track.pairs:
            lines += [
                f"  {pair.a} vs {pair.b}: {pair.items}",
                f"  method: {pair.method}",
                text_table(number_header(pair), number_rows(pair)),
            ]
            for section in sections(pair):
                lines += [
                    f"  {section}:",
                    text_table(number_header(pair), number_rows(pair, section), "    "),
                ]
            for name, test in pair.tests.items():
                lines.append(f"  {name}: {_test_text(test, pair)}")
            for table in pair.tables:
                lines += _list_text(table)
    else:
        label, rows = matrix(track)
        lines += [f"  {label}", text_table(["", *track.models], rows)]
    lines += [f"  note: {note}" for note in track.notes]
    return "\n".join(lines)


def _test_text(test: Any, pair: PairComparison) -> str:
    if isinstance(test, dict) and "only_a" in test:
        return (
            f"{test['only_a']} correct for {pair.a} only, {test['only_b']} for {pair.b} only, "
            f"p = {test['p_value']:.3g} ({test['method']})"
        )
    return str(test)


def _list_text(table: ListTable) -> list[str]:
    if not table.rows:
        return [f"  {table.title}: none"]
    shown = table.rows[:LIST_ROWS]
    more = len(table.rows) - len(shown)
    lines = [f"  {table.title}:", text_table(table.columns, shown, "    ")]
    if more:
        lines.append(f"    ... and {more} more (all of them with --out)")
    return lines


def markdown_report(report: CompareReport) -> str:
    """The same as Markdown, for a model card: one section per track."""
    parts = [f"## Comparison: {', '.join(report.models)}", ""]
    parts.append(
        f"Paired on the items every model has; 95% intervals, {report.settings.get('rounds')} "
        f"bootstrap rounds, seed {report.settings.get('seed')}. Scores and probabilities in %."
    )
    for track in report.tracks:
        parts += ["", f"### {track.title}", ""]
        if track.skipped:
            parts.append(f"Not compared: {track.skipped}.")
        elif len(report.models) > 2:
            label, rows = matrix(track)
            parts += [f"{label}:", "", _md_table(["", *track.models], rows)]
        else:
            for pair in track.pairs:
                parts += [
                    f"{pair.items}. Method: {pair.method}.",
                    "",
                    _md_table(number_header(pair), number_rows(pair)),
                ]
                for section in sections(pair):
                    parts += [
                        "",
                        f"**{section}**",
                        "",
                        _md_table(number_header(pair), number_rows(pair, section)),
                    ]
                for name, test in pair.tests.items():
                    parts += ["", f"{name}: {_test_text(test, pair)}."]
                for table in pair.tables:
                    parts += ["", f"**{table.title}**", ""]
                    parts.append(_md_table(table.columns, table.rows) if table.rows else "none")
        parts += [f"- {note}" for note in track.notes]
    return "\n".join(parts) + "\n"


def _md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(_md(_cell(c)) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
