"""Column widths that fit a wide table (the overview) on a laptop screen, headers wrapping.

Gradio sizes a table's columns to their longest cell on one line, so the overview (a column per
headline number of every track, then the run columns) ran past the right edge. Instead every
column gets a share of the table's width, from the characters it needs: the longest word of its
title (titles wrap between words and after a hyphen, never inside a word), and of its cells
the length of a number, the first column's name up to `FIRST_CHARS`, and a text's longest word
up to `TEXT_CHARS` (a longer one, a config hash, breaks over lines). The shares are set so the
table fits `REFERENCE_PX`, the width of a table on a 1280 px wide window; on a wider window
every column grows with it. The Space's stylesheet (`vlmscope/cli/space/app.py`) sets the font
these sizes assume and lets titles and cells wrap.
"""

from __future__ import annotations

import re

import pandas as pd
from pandas.api.types import is_numeric_dtype

from vlmscope.leaderboard.values import is_number

REFERENCE_PX = 1216.0
"""The table's width in a 1280 px window (the page's margins taken off)."""
ROW_NUMBERS_PX = 48.0
"""The row-number column, which Gradio sizes itself (it takes no share)."""
SCROLLBAR_PX = 16.0
"""A vertical scrollbar, there when the rows are taller than the table's height."""
CHAR_PX = 6.1
"""One character of the table's font (`--text-xs`, 10 px monospace: 6.02 px measured in
Chromium), bold titles included."""
CELL_PAD_PX = 11.0
"""A cell's left and right padding and its border."""
FIRST_CHARS = 16
TEXT_CHARS = 10
_BREAK = re.compile(r"\s+|(?<=-)(?=\D)")
"""Where a line may break: at spaces, and after a hyphen that no digit follows."""


def words(text: str) -> list[str]:
    """The pieces a browser keeps on one line (`MEGA-Bench overall` -> `MEGA-`, `Bench`, ...)."""
    return [w for w in _BREAK.split(text) if w]


def fit_widths(frame: pd.DataFrame) -> list[str]:
    """One width per column of `frame`, as a percentage of the table's width (Gradio's
    `column_widths`): what each column needs, and the room left over shared among the text
    columns (the model's name first of all) in proportion to their needs. When the needs alone
    are over `REFERENCE_PX` (many tracks), each column gets what it needs and the table scrolls
    sideways."""
    columns = [frame.iloc[:, i] for i in range(frame.shape[1])]
    needs = [column_px(str(c.name), c, first=i == 0) for i, c in enumerate(columns)]
    texts = [0.0 if is_numeric_dtype(c) else need for c, need in zip(columns, needs, strict=True)]
    room = REFERENCE_PX - ROW_NUMBERS_PX - SCROLLBAR_PX - sum(needs)
    grow = max(room, 0.0) / sum(texts) if sum(texts) else 0.0
    widths = [need + grow * text for need, text in zip(needs, texts, strict=True)]
    return [f"{100 * width / REFERENCE_PX:.2f}%" for width in widths]


def column_px(title: str, cells: pd.Series, *, first: bool = False) -> float:
    """The pixels a column needs: its title's longest word, or its cells' (see module doc)."""
    chars = max([len(w) for w in words(title)], default=0)
    chars = max(chars, _cell_chars(cells, first=first))
    return chars * CHAR_PX + CELL_PAD_PX


def _cell_chars(cells: pd.Series, *, first: bool) -> int:
    values = cells.tolist()  # Python numbers, not numpy's
    if is_numeric_dtype(cells):
        return max((len(f"{v:g}") for v in values if is_number(v)), default=0)
    texts = [v for v in values if isinstance(v, str) and v]
    if first:
        return min(max((len(t) for t in texts), default=0), FIRST_CHARS)
    longest = max((len(w) for t in texts for w in words(t)), default=0)
    return min(longest, TEXT_CHARS)
