"""A number's interval, shown on the lines under it in the same cell, in a smaller, muted type.

The overview folds each number's interval (and its rank band, or `(no CI)`) under the number in
one cell (`overview_cells`), as plain text; in the table's one size and colour the interval line
read as a second value. CSS cannot pick a text's second line, only its first (`::first-line`):
so a number cell with lines under it gets a style (Gradio's per-cell `styling`) that makes the
whole cell small and muted, and the stylesheet sets every cell's first line back to the table's
size and colour. The cells stay text, as before (never `html` or `markdown`), and the numbers
stay the values the table sorts by; a text column's cell (a model's name, wrapped over lines or
not) is never styled. The smaller type only shortens the lines `widths.fit_widths` sized for.

A track's page keeps each interval in a column of its own beside its number (`Overall 95% CI`,
`95% CI`, `Win rate 95% CI`: its title ends in `INTERVAL_TITLE`); every cell of such a column
gets `INTERVAL_STYLE`, so on every page an interval reads as its number's, smaller and grey,
and stays the same text (copied with the table, searched by the search box).
"""

from __future__ import annotations

from typing import Any

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


INTERVAL_STYLE = "--interval-scale: 0.9; color: var(--neutral-500);"
"""An interval column's cell: grey as `SECONDARY_STYLE`, but sized against its own table, not
set to the overview's 9 px. An overview interval is a line under its number, in a cell whose
first line the stylesheet sets back to the table's size (`FIRST_LINE_CSS`); a track page's
interval is a column beside its number, and its tables are not all one size (10 px where a
table fits the window, 14 px in the others: a rating board, the keyword comparison), so 9 px
was barely smaller than one and not two thirds of the other. 0.9 of the cell's size is the
overview's proportion (9 px of 10 px) on every table. The style goes on the cell itself, where
it would override the stylesheet's 10 px and an `em` would count from the row's 14 px: so it
sets only a scale, which `INTERVAL_CSS` applies inside the cell."""
INTERVAL_CSS = """
.body-cell > .cell-wrap { font-size: calc(var(--interval-scale, 1) * 1em); }
"""
"""A cell's text at its scale (`INTERVAL_STYLE`) of the cell's own size; unscaled elsewhere."""


INTERVAL_TITLE = "95% CI"
"""How the title of a column of intervals ends, on every track page."""


def is_interval_column(title: object) -> bool:
    return str(title).endswith(INTERVAL_TITLE)


def cell_styles(frame: pd.DataFrame, display: list[list[str]]) -> list[list[str]]:
    """Per cell of `frame` (row by row, as `display`), `SECONDARY_STYLE` where a numeric
    column's cell shows lines under its number, `INTERVAL_STYLE` where an interval column's
    cell shows an interval (or `(no CI)`), nothing elsewhere."""
    numeric = [is_numeric_dtype(t) for t in frame.dtypes]
    intervals = [is_interval_column(c) for c in frame.columns]
    return [
        [
            _style(number and "\n" in text, interval and bool(text))
            for number, interval, text in zip(numeric, intervals, row, strict=True)
        ]
        for row in display
    ]


def _style(lines_under_a_number: bool, an_interval: bool) -> str:
    if lines_under_a_number:
        return SECONDARY_STYLE
    return INTERVAL_STYLE if an_interval else ""


def styled_value(frame: pd.DataFrame, display: list[list[str]] | None = None) -> Any:
    """A table's value for `frame`: with `display` (each cell's text in place of its value) or
    any interval column, the cells with their styles (`cell_styles`) and display texts (none:
    each cell shows its value); else the frame as it is. Without `display` only an interval
    column can be styled (a number's own text has no second line), so a frame without one is
    returned before any cell is converted: every table redraw passes here."""
    if display is None and not any(is_interval_column(c) for c in frame.columns):
        return frame
    values = cell_values(frame)
    styles = cell_styles(frame, shown_texts(values) if display is None else display)
    if display is None and not any(any(row) for row in styles):
        return frame
    return {
        "headers": [str(c) for c in frame.columns],
        "data": values,
        "metadata": {"display_value": display, "styling": styles},
    }


def shown_texts(values: list[list[object]]) -> list[list[str]]:
    """Each cell (`cell_values`) as the table shows it without a display value
    (`String(value)`), so the style can be picked by what a cell shows; a missing value shows
    nothing."""
    return [["" if v is None else str(v) for v in row] for row in values]


def cell_values(frame: pd.DataFrame) -> list[list[object]]:
    """The cells of `frame` as the table's data, row by row: a missing value is `None`."""
    values: list[list[object]] = frame.astype(object).where(frame.notna(), None).values.tolist()
    return values
