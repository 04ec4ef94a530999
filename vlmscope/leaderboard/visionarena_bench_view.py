"""VisionArena-Bench page data, and how far the bench agrees with the human-vote board.

The `visionarena_bench` track writes one board (`_boards/visionarena_bench`): every model of the
run and the anchor in one fit of the judge's verdicts, as the reference scorer it names does
(arena-hard-auto v0.1 by default: Elo-scale scores, the anchor pinned; win rates against the
anchor with their own 95% intervals, under `win_rate_lower` / `win_rate_upper`), one board per
prompt category and, on request, the style-controlled twin (paper Tables 7-8). When the board
says how long each model's answers were (`settings.extra["avg_tokens"]`, `{model: tokens}`),
the table shows it; a board that does not say gets no such column.

The agreement panel compares the bench's board with the human-vote board on the models both
rate (`vlmscope.ratings.boards.agreement.compare_leaderboards`, the bench as x, the human votes as
the reference y, paper Table 4); every field of its report is shown, whatever fields it has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pandas as pd

from vlmscope.leaderboard.rating_view import (
    OVERALL,
    board_view,
    count,
    rated_cells,
    rounded,
    shown_models,
    win_rate_ci,
)
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.values import MISSING, is_number
from vlmscope.ratings.boards import agreement
from vlmscope.ratings.boards.board import STYLE_CONTROL_SKIPPED, RatingBoard
from vlmscope.shown_numbers import PERCENT_DIGITS, token_count

AVG_TOKENS = "avg_tokens"
BENCH_COLUMNS = ["Rank", "Model", "Score", "95% CI", "Win rate (%)", "Win rate 95% CI"]
TOKENS_COLUMN = "Avg tokens"
TAIL_COLUMNS = ["Battles", "Role"]
SCALES = {
    "arena-hard-v0.1": "Elo points, the anchor pinned (1000 plain, 1114 style-controlled)",
    "probench": "Elo points, the anchor pinned at 1114",
    "arena-hard-v2": "the win rate against the anchor in %",
}
NOT_ELO = frozenset({"arena-hard-v2"})
MIN_SHARED = 2
"""Models both boards must rate for an agreement to mean anything (one pair)."""
AGREEMENT_VIEWS = (("plain", False), ("style control", True))


def anchor_of(board: RatingBoard) -> str | None:
    """The model every other was judged against."""
    named = board.settings.extra.get("baseline") or board.settings.anchor_model
    return str(named) if named else None


def categories(board: RatingBoard) -> list[str]:
    """The picker's choices: the whole board, then every category board, fitted or skipped."""
    names = {*board.categories, *board.skipped_categories}
    return [OVERALL, *sorted(names - {OVERALL})]


def avg_tokens(view: RatingBoard | None) -> Mapping[str, float] | None:
    """`{model: average answer tokens}` when the board reports it, else None (no column)."""
    tokens = view.settings.extra.get(AVG_TOKENS) if view is not None else None
    if not isinstance(tokens, Mapping):
        return None
    return {str(m): float(t) for m, t in tokens.items() if is_number(t)}


def bench_frame(board: RatingBoard, category: str, style_control: bool) -> pd.DataFrame:
    """One row per model of the chosen view, best first: rank, score and its 95% interval,
    the win rate against the anchor (%) and its interval, the average answer tokens when the
    board reports them, battles, and which row is the anchor. No rows for a view that was
    not fitted (`missing_note` says why)."""
    view = board_view(board, category, style_control=style_control)
    tokens = avg_tokens(view)
    anchor = anchor_of(board)
    columns = BENCH_COLUMNS + ([TOKENS_COLUMN] if tokens is not None else []) + TAIL_COLUMNS
    rows = []
    for model, entry, cells in shown_models(view):
        rated = cells is rated_cells  # too few votes: no win rate either
        row = [*cells(model, entry), rounded(entry.win_rate if rated else None, PERCENT_DIGITS),
               win_rate_ci(entry) if rated else ""]  # fmt: skip
        if tokens is not None:
            measured = tokens.get(model)
            row.append(MISSING if measured is None else token_count(measured))
        row += [count(entry.battles), "anchor" if model == anchor else ""]
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def missing_note(board: RatingBoard, category: str, style_control: bool) -> str:
    """Why the chosen view was not fitted, "" when it was (plain text)."""
    if board_view(board, category, style_control=style_control) is not None:
        return ""
    name = "All prompts" if category == OVERALL else as_text(category)
    skipped = board.skipped_categories
    if category in skipped:
        return f"{name}: not fitted ({as_text(skipped[category])})."
    plain = board_view(board, category)
    if plain is None:
        return f"{name}: not in these results."
    reason = plain.settings.extra.get(STYLE_CONTROL_SKIPPED)
    if reason:
        why = as_text(reason)
    elif plain.is_style_controlled:
        why = "this board is style-controlled itself"
    else:
        why = "the run did not ask for one (`style_control: true` in the track options)"
    return f"{name}: no style-controlled board ({why})."


def bench_description(board: RatingBoard) -> str:
    """What the scores mean (plain text)."""
    reference = board.settings.reference or "unknown"
    scale = SCALES.get(reference, "the reference's own scale")
    anchor = anchor_of(board) or "not named"
    return (
        f"Every model and the anchor ({anchor}) in one fit of the judge's verdicts, as "
        f"{reference} scores them. Score: {scale}. Win rate: against the anchor, in %. "
        "95% bootstrap intervals as +above / -below; the rank is one plus the number of models "
        "whose whole interval lies above."
    )


def board_points(view: RatingBoard) -> dict[str, tuple[float, float, float]]:
    """`model -> (score, lower, upper)`, as `compare_leaderboards` reads a board."""
    return {m: (e.rating, e.lower, e.upper) for m, e in view.models.items()}


def agreement_frame(bench: RatingBoard, arena: RatingBoard) -> tuple[pd.DataFrame, str]:
    """The agreement of the bench's board (x) with the human-vote board (y) on their shared
    models: one row per field of the agreement report (every field, named as the report names
    it), one column per pair of views compared (plain and, when both boards have one,
    style-controlled). With fewer than `MIN_SHARED` shared models a pair has no column, and
    the note says why; no column at all is an empty frame."""
    columns: dict[str, dict[str, Any]] = {}
    notes = []
    for label, styled in AGREEMENT_VIEWS:
        x = board_view(bench, OVERALL, style_control=styled)
        y = board_view(arena, OVERALL, style_control=styled)
        if x is None or y is None:
            if styled:
                side = "the bench" if x is None else "the human-vote board"
                notes.append(f"No style-controlled comparison: {side} has no style-controlled fit.")
            continue
        shared = [m for m in x.models if m in y.models]
        if len(shared) < MIN_SHARED:
            notes.append(
                f"No {label} comparison: the boards share {len(shared)} model"
                f"{'' if len(shared) == 1 else 's'} ({', '.join(shared) or 'none'}); "
                f"agreement needs at least {MIN_SHARED}."
            )
            continue
        report = agreement.compare_leaderboards(board_points(x), board_points(y))
        columns[label] = {k: _cell(v) for k, v in _fields(report).items()}
    if columns and bench.settings.reference in NOT_ELO:
        notes.append(
            f"The bench's scores are {SCALES[str(bench.settings.reference)]}, not Elo points: a "
            "measure that reads score differences as Elo odds (a Brier-style forecast) does not "
            "apply to them."
        )
    if not columns:
        return pd.DataFrame(), " ".join(notes)
    names = list(dict.fromkeys(k for fields in columns.values() for k in fields))
    rows = [[name, *(fields.get(name, "") for fields in columns.values())] for name in names]
    return pd.DataFrame(rows, columns=["Measure", *columns]), " ".join(notes)


def agreement_missing(arena: RatingBoard | None, bench: RatingBoard | None) -> str:
    """Why there is no agreement to show ("" when both boards are there; plain text)."""
    if bench is None:
        return (
            "No VisionArena-Bench board in these results to compare with: a run of the "
            "visionarena_bench track writes one under _boards/visionarena_bench."
        )
    if arena is None:
        return (
            "No human-vote board in these results to compare with: `vlmscope visionarena "
            "leaderboard DATA --result-dir RESULTS/_boards/visionarena` writes one."
        )
    return ""


def _fields(report: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(report) and not isinstance(report, type):
        return dataclasses.asdict(report)
    return dict(vars(report))


def _cell(value: Any) -> str:
    """A report field as a table cell (text: a column mixes numbers and lists of models):
    numbers to 4 decimals, "n/a" for one that is not a number, a list of models as names."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return f"{value:.4g}" if is_number(value) else "n/a"
    if isinstance(value, list | tuple):
        return f"{len(value)}: " + ", ".join(as_text(v) for v in value)
    return as_text(value)
