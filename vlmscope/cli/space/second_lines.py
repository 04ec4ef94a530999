"""A number's interval, shown on the lines under it in the same cell, in a smaller, muted type.

The overview folds each number's interval (and its rank band, or `(no CI)`) under the number in
one cell (`overview_cells`), as plain text; in the table's one size and colour the interval line
read as a second value. CSS cannot pick a text's second line, only its first (`::first-line`):
so a number cell with lines under it gets a style (Gradio's per-cell `styling`) that makes the
whole cell small and muted, and the stylesheet sets every cell's first line back to the table's
size and colour. The cells stay text, as before (never `html` or `markdown`), and the numbers
stay the values the table sorts by; a text column's cell (a model's name, wrapped over lines or
not) is never styled. The smaller type only shortens the lines `widths.fit_widths` sized for.
"""

from __future__ import annotations

import pandas as pd
from pandas.api.types import is_numeric_dtype

SECONDARY_STYLE = "font-size: var(--text-xxs); color: var(--neutral-500);"
"""A number cell with lines under its number: smaller (9 px against the table's 10 px) and
grey (still 4.8:1 against the page's white)."""
FIRST_LINE_CSS = """
#overview-table .body-cell span::first-line {
  font-size: var(--text-xs); color: var(--body-text-color);
}
"""
"""The first line of every overview cell at the table's size and colour: a styled cell's
number stands out from its smaller lines, an unstyled cell is as it was."""


def cell_styles(frame: pd.DataFrame, display: list[list[str]]) -> list[list[str]]:
    """Per cell of `frame` (row by row, as `display`), `SECONDARY_STYLE` where a numeric
    column's cell shows lines under its number, nothing elsewhere."""
    numeric = [is_numeric_dtype(t) for t in frame.dtypes]
    return [
        [
            SECONDARY_STYLE if number and "\n" in text else ""
            for number, text in zip(numeric, row, strict=True)
        ]
        for row in display
    ]
