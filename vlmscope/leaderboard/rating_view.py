"""Rating page data: one `RatingBoard` shown by category, with or without style control.

Bradley-Terry ratings are only comparable within one fit, so a rating track shows one board
(`vlmscope.ratings.boards.board`), read from the track's board result dataset. The board carries its
own ranks (1 + the number of models whose interval lies wholly above), its per-category boards
and its style-controlled companion; this module only picks the view a reader asked for and lays
it out as a table. Nothing here is specific to one benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from vlmscope.leaderboard.records import BoardRecord
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.leaderboard.values import MISSING, is_number, number_at
from vlmscope.ratings.boards.board import ModelRating, RatingBoard
from vlmscope.shown_numbers import PERCENT_DIGITS, RATING_DIGITS, offsets_text, rating_number

OVERALL = "overall"
RATING_COLUMNS = ["Rank", "Model", "Rating", "95% CI", "Win rate", "Battles"]
WIN_RATE_CI = "Win rate 95% CI"
"""After `Win rate` where the board records the win rates' intervals."""
STYLE_COLUMNS = ["Feature", "Coefficient"]
SYSTEMS = {"bt": "Bradley-Terry", "elo": "online Elo"}  # `settings.system` of a battle board
MIN_VOTES_TO_RATE = 20
"""Votes (human battles or judged games) a board view needs before its ratings are shown.
Below it a Bradley-Terry fit says more about its regularisation than about the models (one
vote gives 3276 against -1276, its bootstrap an interval of zero), so the view lists its
models and their votes with `TOO_FEW` instead of numbers. The live arena sets its own
(`board.min_votes_to_rate`)."""
TOO_FEW = "too few votes to rate"


def categories(board: RatingBoard) -> list[str]:
    """The choices of the category picker: the whole board first, then its categories."""
    return [OVERALL, *sorted(c for c in board.categories if c != OVERALL)]


def has_style_control(board: RatingBoard) -> bool:
    """Whether a style-controlled view exists: the board is one, or carries one."""
    return board.is_style_controlled or board.style_control is not None


def board_view(
    board: RatingBoard, category: str = OVERALL, *, style_control: bool = False
) -> RatingBoard | None:
    """The board of one category (`OVERALL`: the whole board), with or without style control;
    None when that combination was not computed."""
    return board.view(None if category == OVERALL else category, style_control=style_control)


def vote_count(view: RatingBoard) -> float:
    """The votes a view was fitted on: the battles it counted, else the rows it read, else
    half its models' battles (each battle has two sides)."""
    for key in ("n_battles", "n_battle_rows"):
        value: Any = view.settings.extra.get(key)
        if is_number(value):
            return float(value)
    return sum(float(r.battles or 0) for r in view.models.values()) / 2


def too_few_votes(view: RatingBoard | None, minimum: int = MIN_VOTES_TO_RATE) -> bool:
    """Whether a computed view has fewer votes than `minimum` (its ratings are not shown)."""
    return view is not None and vote_count(view) < minimum


def ratings_of(
    view: RatingBoard | None, minimum: int = MIN_VOTES_TO_RATE
) -> dict[str, ModelRating]:
    """The view's models best first ({} for a view that was not computed or has too few
    votes to rate)."""
    if view is None or too_few_votes(view, minimum):
        return {}
    return dict(sorted(view.models.items(), key=lambda kv: -_sort_key(kv[1].rating)))


def rating_frame(view: RatingBoard | None, minimum: int = MIN_VOTES_TO_RATE) -> pd.DataFrame:
    """One row per model, best first: the board's rank, rating, interval, win rate (%) with its
    interval where the board records one (a pairwise run's joint board), battles; for a view
    with too few votes, each model with its battles and `TOO_FEW` for the rest."""
    shown = shown_models(view, minimum)
    with_ci = any(win_rate_ci(entry) for _, entry, _ in shown)
    rows = []
    for model, entry, cells in shown:
        rated = cells is rated_cells  # no rate from few votes
        # in percent already, as precise as every shown rate
        row = [*cells(model, entry), rounded(entry.win_rate if rated else None, PERCENT_DIGITS)]
        row += [win_rate_ci(entry) if rated else ""] if with_ci else []
        rows.append([*row, rounded(entry.battles, 0)])
    columns = list(RATING_COLUMNS)
    if with_ci:
        columns.insert(columns.index("Win rate") + 1, WIN_RATE_CI)
    return pd.DataFrame(rows, columns=columns)


def win_rate_ci(entry: ModelRating) -> str:
    """`+4.12 / -3.90`: the win rate's interval as offsets, with the win rate's own digits (""
    when the board has none)."""
    rate = entry.win_rate
    low, high = number_at(entry.extra, "win_rate_lower"), number_at(entry.extra, "win_rate_upper")
    if rate is None or low is None or high is None or not is_number(rate):
        return ""
    return offsets_text(high - rate, low - rate, PERCENT_DIGITS)


def shown_models(
    view: RatingBoard | None, minimum: int = MIN_VOTES_TO_RATE
) -> list[tuple[str, ModelRating, Callable[[str, ModelRating], list[Any]]]]:
    """The rows of a board table: each model with its entry and how its first cells read,
    best first (`rated_cells`), or, for a view with too few votes, by votes (`unrated_cells`)."""
    if view is None:
        return []
    if too_few_votes(view, minimum):
        by_votes = sorted(view.models.items(), key=lambda kv: (-_sort_key(kv[1].battles), kv[0]))
        return [(model, entry, unrated_cells) for model, entry in by_votes]
    return [(model, entry, rated_cells) for model, entry in ratings_of(view, minimum).items()]


def unrated_cells(model: str, entry: ModelRating) -> list[Any]:
    """`rated_cells` of a view with too few votes: no rank or rating, `TOO_FEW` as interval."""
    return [MISSING, model, MISSING, TOO_FEW]


def rated_cells(model: str, entry: ModelRating) -> list[Any]:
    """The cells every board table starts a model's row with: the board's rank, the model, its
    rating (`rating_number`, as the overview shows it) and interval (`ci_text`)."""
    rank = entry.rank if entry.rank is not None else MISSING
    rating = rating_number(entry.rating) if is_number(entry.rating) else MISSING
    return [rank, model, rating, ci_text(entry)]


def style_frame(view: RatingBoard | None) -> pd.DataFrame:
    """The style coefficients of a style-controlled fit (empty when it has none)."""
    coefficients: Mapping[str, float] = (view.style_coefficients or {}) if view else {}
    rows = [[name, round(value, 4)] for name, value in coefficients.items() if is_number(value)]
    return pd.DataFrame(rows, columns=STYLE_COLUMNS)


def board_note(record: BoardRecord, title: str) -> str:
    """The Markdown note above a board: what it is, where it came from, how many battles."""
    board, settings = record.board, record.board.settings
    how = [f"{settings.rounds} bootstrap rounds"] if settings.rounds else []
    if settings.reference:
        how.insert(0, f"as the {markdown_literal(settings.reference)} reference computes it")
    if settings.anchor_model is not None and settings.anchor_rating is not None:
        how.append(f"{markdown_literal(settings.anchor_model)} fixed at {settings.anchor_rating:g}")
    made = f"{markdown_literal(record.source) or 'unknown source'}"
    if record.finished_at:
        made += f", {markdown_literal(record.finished_at[:10])}"
    used = settings.extra.get("n_battles")
    battles = f"{record.n_rows} battles"
    if is_number(used) and used != record.n_rows:
        battles = f"{used:g} battles (of {record.n_rows} read)"
    note = (
        f"**{markdown_literal(title)}**: one {_system(settings.extra.get('system'))} fit over "
        f"{len(board.models)} models "
        f"from {battles} ({made})"
        + (f"; {', '.join(how)}" if how else "")
        + ". 95% bootstrap intervals; the rank is the board's: one plus the number of models "
        "whose whole interval lies above a model's own. Win rate in %, as the board reports it."
    )
    if board.unparseable or board.excluded:
        left_out = {"unparseable": board.unparseable, **board.excluded}
        listed = ", ".join(f"{markdown_literal(k)} {v}" for k, v in left_out.items() if v)
        note += f" Not used: {listed}."
    return note


def view_label(title: str, category: str, style_control: bool, view: RatingBoard | None) -> str:
    """The chart title of one view: which board, and its number of battles when it says."""
    label = f"{title}, {category}" + (", style control" if style_control else "")
    if view is None:
        return label + ": not reported"
    if too_few_votes(view):
        return label + f": {TOO_FEW} ({vote_count(view):g} of the {MIN_VOTES_TO_RATE} it needs)"
    battles = view.settings.extra.get("n_battles")
    return label + (f" ({battles:g} battles)" if is_number(battles) else "")


def ci_text(entry: ModelRating) -> str:
    """`+12.3 / -8.1`: how far the interval reaches above and below the rating."""
    if not all(is_number(v) for v in (entry.rating, entry.lower, entry.upper)):
        return ""
    return offsets_text(entry.upper - entry.rating, entry.lower - entry.rating, RATING_DIGITS)


def _system(name: object) -> str:
    return SYSTEMS.get(str(name), markdown_literal(name)) if name else SYSTEMS["bt"]


def rounded(value: Any, digits: int) -> float:
    """A number rounded for a table cell, NaN (an empty cell) when it is not a number."""
    return round(value, digits) if is_number(value) else MISSING


def count(value: Any) -> float:
    """A count as an int for a table cell, NaN (an empty cell) when it is not a number."""
    return int(value) if is_number(value) else MISSING


def _sort_key(value: float | None) -> float:
    return float(value) if value is not None and is_number(value) else float("-inf")
