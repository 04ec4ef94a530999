"""VisionArena page data: the human-vote board of `vlmscope visionarena leaderboard`.

That command writes one `RatingBoard` (track `visionarena`) with every category and language
board, each with its style-controlled twin, and in `settings.extra` what the paper reads off
them, keyed by board (`full` for the whole board): `tie_shares` (Table 2), `thin_models` (models
under `min_votes` on that board: the starred cells of Figs. 7-8) and `rank_changes` (Fig. 8:
plain rank minus the rank under style control, positive = the model climbs). This module lays
those out: the rating table of one board with or without style control, the tie shares per
board, the style coefficients per board (Fig. 6). A board, or a twin, that was not fitted is
stated with the reason the board gives (`skipped_categories`, `style_control_skipped`), never
shown as an empty table.

Nothing here imports the track; the board names and their order are the leaderboard's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from vlmscope.leaderboard.rating_view import (
    OVERALL,
    board_view,
    count,
    rated_cells,
    rounded,
    shown_models,
)
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.values import MISSING, is_number, number_at
from vlmscope.ratings.boards.board import STYLE_CONTROL_SKIPPED, RatingBoard

FULL = "full"
"""The whole board's key in the `settings.extra` maps."""
LANGUAGE_PREFIX = "language: "
CATEGORY_LABELS: dict[str, str] = {
    "captioning": "Captioning",
    "entity_recognition": "Entity recognition",
    "ocr": "OCR",
    "creative_writing_vision": "Creative writing",
    "homework": "Homework",
    "diagram": "Diagram",
    "humor": "Humor",
    "no_refusal": "Exclude refusals",
    "is_preset": "Exclude preset images",
    "multiturn": "Multi-turn",
    "no_tie": "Exclude ties",
}
"""The vision leaderboard's category boards, in its order; language boards follow."""
BREAKDOWN_KEYS = ("tie_shares", "thin_models", "rank_changes")
STAR = "★"
TIE, BOTH_BAD = "tie", "tie (bothbad)"
STYLE_FEATURES = ("tokens", "headers", "lists", "bold")
ARENA_COLUMNS = ["Rank", "Model", "Score", "95% CI", "Votes", STAR]
RANK_CHANGE = "Rank change"
TIE_COLUMNS = ["Board", "Battles", "Tie (%)", "Tie (bothbad) (%)"]
STYLE_NOTE = "Note"


def is_arena_board(board: RatingBoard) -> bool:
    """A board of `vlmscope visionarena leaderboard`: it carries the paper's breakdowns."""
    return any(key in board.settings.extra for key in BREAKDOWN_KEYS)


def key_of(category: str) -> str:
    """The `settings.extra` key of a picker value (`OVERALL` -> `full`)."""
    return FULL if category in (OVERALL, FULL) else category


def label_of(category: str) -> str:
    if category in (OVERALL, FULL):
        return "All battles"
    if category.startswith(LANGUAGE_PREFIX):
        return f"Language: {as_text(category[len(LANGUAGE_PREFIX) :])}"
    return CATEGORY_LABELS.get(category, as_text(category))


def board_names(board: RatingBoard) -> list[str]:
    """Every board the leaderboard asked for, fitted or skipped: the whole board, the category
    boards in the leaderboard's order, then the language boards, then any other."""
    names = [*board.categories, *(n for n in board.skipped_categories if n not in board.categories)]
    ordered = [n for n in CATEGORY_LABELS if n in names]
    languages = [n for n in names if n.startswith(LANGUAGE_PREFIX)]
    return [OVERALL, *ordered, *languages, *(n for n in names if n not in {*ordered, *languages})]


def category_choices(board: RatingBoard) -> list[tuple[str, str]]:
    """(label, value) pairs for the category picker; a skipped board says so in its label."""
    skipped = board.skipped_categories
    return [
        (label_of(name) + (" (not fitted)" if name in skipped else ""), name)
        for name in board_names(board)
    ]


def min_votes(board: RatingBoard) -> int | None:
    value = number_at(board.settings.extra, "min_votes")
    return None if value is None else int(value)


def _breakdown(board: RatingBoard, name: str, category: str) -> Any:
    table = board.settings.extra.get(name)
    return table.get(key_of(category)) if isinstance(table, Mapping) else None


def thin_models(board: RatingBoard, category: str) -> set[str]:
    """The models under the minimum-votes rule on one board, as the board lists them (or, for
    a board that does not list them, those with fewer battles than `min_votes`)."""
    listed = _breakdown(board, "thin_models", category)
    if isinstance(listed, Sequence) and not isinstance(listed, str):
        return {str(m) for m in listed}
    view = board_view(board, category)
    threshold = min_votes(board)
    if view is None or threshold is None:
        return set()
    return {m for m, e in view.models.items() if e.battles is not None and e.battles < threshold}


def rank_changes(board: RatingBoard, category: str) -> dict[str, int]:
    """Plain rank minus rank under style control per model of one board (positive = the model
    climbs under style control), as the board lists them, else from its two views."""
    listed = _breakdown(board, "rank_changes", category)
    if isinstance(listed, Mapping):
        return {str(m): int(v) for m, v in listed.items() if is_number(v)}
    plain = board_view(board, category)
    styled = board_view(board, category, style_control=True)
    if plain is None or styled is None:
        return {}
    return {
        m: e.rank - styled.models[m].rank  # type: ignore[operator]
        for m, e in plain.models.items()
        if m in styled.models and e.rank is not None and styled.models[m].rank is not None
    }


def missing_note(board: RatingBoard, category: str, style_control: bool) -> str:
    """Why this board (or its style-controlled twin) has no view, "" when it has one (plain
    text: a page quoting it in Markdown passes it through `markdown_literal`)."""
    reason = missing_reason(board, category, style_control)
    return f"{label_of(category)}: {reason}." if reason else ""


def missing_reason(board: RatingBoard, category: str, style_control: bool) -> str:
    """`missing_note` without the board's name ("" when the view exists)."""
    if board_view(board, category, style_control=style_control) is not None:
        return ""
    skipped = board.skipped_categories
    if category in skipped:
        return f"not fitted ({as_text(skipped[category])})"
    plain = board_view(board, category)
    if plain is None:
        return "not in these results"
    reason = plain.settings.extra.get(STYLE_CONTROL_SKIPPED)
    why = as_text(reason) if reason else "the board has no style-controlled fit"
    return f"no style-controlled board ({why}); the plain board is fitted"


def arena_frame(board: RatingBoard, category: str, style_control: bool) -> pd.DataFrame:
    """One row per model of the chosen view, best first: the board's rank (one plus the models
    whose interval lies wholly above), score, 95% interval, votes, a star on a model under the
    minimum-votes rule, and, under style control, the rank change. No rows for a view that was
    not fitted (`missing_note` says why)."""
    view = board_view(board, category, style_control=style_control)
    thin = thin_models(board, category)
    changes = rank_changes(board, category) if style_control else {}
    rows = []
    for model, entry, cells in shown_models(view):
        row = [*cells(model, entry), count(entry.battles), STAR if model in thin else ""]
        if style_control:  # a view with too few votes has no ranks to change
            row.append(changes.get(model, MISSING) if cells is rated_cells else MISSING)
        rows.append(row)
    return pd.DataFrame(rows, columns=ARENA_COLUMNS + ([RANK_CHANGE] if style_control else []))


def legend(board: RatingBoard, style_control: bool) -> str:
    """What the marks and columns of `arena_frame` mean (plain Markdown, no data in it)."""
    votes = min_votes(board)
    threshold = f"{votes}" if votes is not None else "the minimum number of"
    text = (
        "**Rank**: one plus the number of models whose whole 95% interval lies above the "
        "model's own (overlapping intervals share a rank). **Votes**: battles of the model on "
        f"this board. **{STAR}**: fewer than {threshold} votes on this board (the paper's "
        "minimum-votes rule): a rating to read with care."
    )
    if style_control:
        text += (
            f" **{RANK_CHANGE}**: the rank without style control minus the rank with it; "
            "positive means the model climbs once answer length and markdown are accounted "
            "for, negative means style was helping it."
        )
    return text


def tie_frame(board: RatingBoard) -> pd.DataFrame:
    """Tie and tie (bothbad) shares (%) of each board's battles (paper Table 2); a board that
    was not fitted shows its reason in the note column (there only when one is needed)."""
    shares = board.settings.extra.get("tie_shares")
    shares = shares if isinstance(shares, Mapping) else {}
    skipped = board.skipped_categories
    rows = []
    for name in board_names(board):
        entry = shares.get(key_of(name))
        if isinstance(entry, Mapping):
            rows.append(
                [
                    label_of(name),
                    count(entry.get("battles")),
                    rounded(entry.get(TIE), 2),
                    rounded(entry.get(BOTH_BAD), 2),
                    "",
                ]
            )
        elif name in skipped:
            rows.append([label_of(name), MISSING, MISSING, MISSING, _not_fitted(skipped[name])])
    return _without_empty_note(pd.DataFrame(rows, columns=[*TIE_COLUMNS, STYLE_NOTE]))


def style_coefficients(board: RatingBoard, category: str) -> Mapping[str, float] | None:
    """The style coefficients of one board's style-controlled twin (None without a twin)."""
    twin = board_view(board, category, style_control=True)
    return None if twin is None else dict(twin.style_coefficients or {})


def style_frame(board: RatingBoard) -> pd.DataFrame:
    """The style coefficients of every board's twin (paper Fig. 6): one row per board, one
    column per feature (answer length and the markdown counts); a board without a twin says
    why in the note column (there only when one is needed)."""
    rows = []
    for name in board_names(board):
        coefficients = style_coefficients(board, name)
        if coefficients is None:
            note = missing_reason(board, name, True)
            rows.append([label_of(name), *(MISSING for _ in STYLE_FEATURES), note])
            continue
        values = [rounded(coefficients.get(f), 4) for f in STYLE_FEATURES]
        rows.append([label_of(name), *values, ""])
    return _without_empty_note(pd.DataFrame(rows, columns=["Board", *STYLE_FEATURES, STYLE_NOTE]))


def board_summary(board: RatingBoard) -> str:
    """A line on how the boards were made: minimum votes, boards not fitted, the anony note
    (plain text, like `missing_note`)."""
    parts = []
    votes = min_votes(board)
    if votes is not None:
        parts.append(f"Models with fewer than {votes} votes on a board are starred ({STAR}).")
    skipped = board.skipped_categories
    if skipped:
        parts.append(f"Boards not fitted: {', '.join(label_of(n) for n in skipped)}.")
    if board.settings.extra.get("anony"):
        parts.append(as_text(board.settings.extra["anony"]) + ".")
    return " ".join(parts)


def _without_empty_note(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame without its note column when no row has a note."""
    return frame if (frame[STYLE_NOTE] != "").any() else frame.drop(columns=STYLE_NOTE)


def _not_fitted(reason: object) -> str:
    return f"not fitted: {as_text(reason)}"
