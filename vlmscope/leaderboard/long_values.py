"""Text in a result folder longer than any real name is cut for display, and said.

A model name, a track name or a timestamp is a few dozen characters; one of megabytes (a
damaged or hostile upload) would be sent to every visitor's browser in the page's config and
measured for the table's widths, and kept the Space from starting. Each such value is cut to
`DISPLAY_CHARS` (with "…" and its true length) wherever the page shows it, and the record says
which columns were cut, so the store lists the folder as suspicious; nothing is refused for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from vlmscope.ratings.boards.board import RatingBoard

DISPLAY_CHARS = 200


def shown(text: str, column: str, cut: list[str]) -> str:
    """`text`, cut to `DISPLAY_CHARS` when longer (then `column` and its length go to `cut`)."""
    if len(text) <= DISPLAY_CHARS:
        return text
    cut.append(f"{column} ({len(text):,} characters)")
    return f"{text[: DISPLAY_CHARS - 1]}… ({len(text):,} characters)"


def text_column(row: Mapping[str, Any], key: str, cut: list[str]) -> str:
    """A text column of a summary row ("" when null), cut for display."""
    value = row.get(key)
    return shown("" if value is None else str(value), key, cut)


def shown_keys(mapping: Mapping[str, Any], what: str, cut: list[str]) -> dict[str, Any]:
    """`mapping` with each over-long key cut (a cut that meets another key gets a number)."""
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        name = shown(key, what, cut)
        base, n = name, 1
        while name in out:
            n += 1
            name = f"{base} #{n}"
        out[name] = value
    return out


def shown_board(board: RatingBoard, cut: list[str]) -> RatingBoard:
    """The board with over-long model and category names cut, its companions likewise."""
    return replace(
        board,
        models=shown_keys(board.models, "a model's name", cut),
        style_control=None
        if board.style_control is None
        else shown_board(board.style_control, cut),
        categories=shown_keys(
            {name: shown_board(b, cut) for name, b in board.categories.items()},
            "a category's name",
            cut,
        ),
    )
