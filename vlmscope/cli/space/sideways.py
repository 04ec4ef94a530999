"""Wide tables in a window narrower than 1280 px: the 1280 px layout, scrolled sideways in its
frame, with the model's name pinned at the left.

The overview's and the track pages' wide tables (`widgets.table(..., fit=True)`) size their
columns for a 1280 px window (`vlmscope.leaderboard.widths`). Narrower, Gradio shrinks every
column with the window until titles split inside words ("Gra/ded") and numbers over two lines;
so below 1280 px each keeps its 1280 px layout and its frame scrolls sideways instead. A row
scrolled that way would show numbers without the model they belong to, so the columns up to
the model's name (the overview's row numbers, MEGA-Bench's rank) stay pinned at the frame's
left edge (`position: sticky`), on the row's own background so what scrolls under them is
hidden.

Sticky cells stick to their nearest scrolling box. Gradio's table scrolls inside its viewport,
whose width is also what Gradio sizes the columns from; so the viewport keeps the 1280 px width
and stops scrolling (it grows to all its rows), and the frame around it scrolls both ways, up
to the table's height, with the cells pinned to it. At 1280 px and wider nothing changes but
the pinning, which holds wherever a table scrolls sideways (an overview with many tracks).
"""

from __future__ import annotations

import pandas as pd

from vlmscope.leaderboard.widths import REFERENCE_PX, column_px

OVERVIEW_ID = "overview-table"
FIT_CLASS = "fit-table"
"""The class of a table whose columns share the page's width (`fit=True`), titles and cells
wrapping in the overview's small font, instead of running past the right edge of a laptop's
window."""
RANKED_CLASS = "rank-first"
"""A fit table whose first column is the model's rank, the model's name second: both pinned."""
RANK_TITLE = "Rank"
OVERVIEW_MAX_PX = 700
"""The overview's height before it scrolls down."""
TABLE_MAX_PX = 600
"""Any other table's height before it scrolls down."""
NARROW = "(max-width: 1279px)"
"""A window narrower than the 1280 px the widths are set for."""
RANK_PX = column_px(RANK_TITLE, pd.Series([9999]))
"""The width of a rank column as `fit_widths` sizes it (a number of at most four digits)."""
ROW_FILL = "linear-gradient(var(--row-fill), var(--row-fill)), var(--block-background-fill)"
"""A pinned cell's background: its row's colour, opaque, so the cells scrolled under it are hidden."""
ROW_NUMBERS = "var(--size-12)"
"""The width of Gradio's row-number column (its stylesheet's)."""


def _pin(table: str, column: int, left: str) -> str:
    """Pin a table's data column (Gradio numbers them from 0), its title and its cells, `left`
    from the frame's left edge."""
    title, cell = f"{table} th[data-heading='{column}']", f"{table} .body-cell[data-col='{column}']"
    return (
        f"{title}, {cell} {{ position: sticky !important; left: {left}; z-index: 3; }}\n"
        f"{cell} {{ background: {ROW_FILL}; }}\n"
    )


def _edge(table: str, column: int) -> str:
    """A line right of the last pinned column (the model's), where the scrolled ones pass."""
    title, cell = f"{table} th[data-heading='{column}']", f"{table} .body-cell[data-col='{column}']"
    return f"{title}, {cell} {{ border-right: 1px solid var(--border-color-primary); }}\n"


def _row_fill(table: str) -> str:
    """Each row's fill as a variable its pinned cells paint (Gradio's row colours, which are
    see-through on the default theme: they paint over the block's own fill)."""
    row = f"{table} .virtual-row"
    return (
        f"{row} {{ --row-fill: var(--table-odd-background-fill); }}\n"
        f"{row}.row-odd {{ --row-fill: var(--table-even-background-fill); }}\n"
        f"{row}:hover {{ --row-fill: var(--table-row-focus); }}\n"
    )


def sideways_css() -> str:
    """The stylesheet rules (see the module doc)."""
    overview, fit = f"#{OVERVIEW_ID}", f".{FIT_CLASS}"
    ranked = f".{FIT_CLASS}.{RANKED_CLASS}"
    return (
        _row_fill(overview)
        + _row_fill(fit)
        + f"{overview} .row-number-header, {overview} .row-number-cell "
        "{ position: sticky; left: 0; z-index: 3; }\n"
        f"{overview} .row-number-cell {{ background: {ROW_FILL}; }}\n"
        + _pin(overview, 0, ROW_NUMBERS)
        + _edge(overview, 0)
        + _pin(fit, 0, "0")
        + _edge(f"{fit}:not(.{RANKED_CLASS})", 0)
        + _pin(ranked, 1, f"{RANK_PX:g}px")
        + _edge(ranked, 1)
        + f"@media {NARROW} {{\n"
        f"  {overview} .upload-container {{ overflow: auto; max-height: {OVERVIEW_MAX_PX}px; }}\n"
        f"  {fit} .upload-container {{ overflow: auto; max-height: {TABLE_MAX_PX}px; }}\n"
        f"  {overview} .virtual-table-viewport, {fit} .virtual-table-viewport {{\n"
        f"    min-width: {REFERENCE_PX:g}px; overflow: visible; max-height: none !important;\n"
        "  }\n"
        "}\n"
    )
