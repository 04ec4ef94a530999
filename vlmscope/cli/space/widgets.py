"""The display widgets every page uses, configured once.

Tables are read-only, searchable and sortable, with numeric columns typed as numbers and every
other column as plain text; text boxes are read-only, so whatever a model wrote is a value in a
text field and never markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import gradio as gr
import pandas as pd

from vlmscope.cli.space.second_lines import styled_value
from vlmscope.cli.space.sideways import FIT_CLASS, RANK_TITLE, RANKED_CLASS, TABLE_MAX_PX
from vlmscope.leaderboard.values import column_types
from vlmscope.leaderboard.widths import fit_widths


def dom_id(*parts: str) -> str:
    """An element id from names in the data (a track name), reduced to safe characters."""
    return re.sub(r"[^a-z0-9_-]+", "-", "-".join(parts).lower())


def table(
    frame: pd.DataFrame, display: list[list[str]] | None = None, **options: Any
) -> gr.Dataframe:
    """A read-only table of `frame`; with `display`, each cell shows that text instead of its
    value (a number with its interval, the lines under the number smaller: `second_lines`)
    while sorting and filtering still use the value; an interval column's cells are as small
    and grey (`second_lines`). With `fit=True`, its columns are sized to
    fit the window (`FIT_CLASS`): a table with an interval beside every number is wider than a
    laptop's window, and its last columns (often the headline) would be off to the right. In a
    narrower window it scrolls sideways with the model's name pinned (`sideways`), the rank
    before it too when the table starts with one."""
    options.setdefault("show_search", "search")
    if options.pop("fit", False):
        ranked = frame.shape[1] > 1 and str(frame.columns[0]) == RANK_TITLE
        classes = [FIT_CLASS, RANKED_CLASS] if ranked else [FIT_CLASS]
        options.update(wrap=True, column_widths=fit_widths(frame), elem_classes=classes)
    return gr.Dataframe(
        value=styled_value(frame, display),
        datatype=column_types(frame.dtypes),  # type: ignore[arg-type]
        interactive=False,
        pinned_columns=1,
        max_height=options.pop("max_height", TABLE_MAX_PX),
        **options,
    )


def update_table(frame: pd.DataFrame) -> Any:
    """A new value for a table, with datatypes matching its (possibly new) columns and its
    interval columns styled as `table` styles them."""
    return gr.update(value=styled_value(frame), datatype=column_types(frame.dtypes))


def text(label: str, lines: int = 3, **options: Any) -> gr.Textbox:
    return gr.Textbox(label=label, lines=lines, max_lines=30, interactive=False, **options)


def gallery(images: Any, label: str, **options: Any) -> gr.Gallery:
    """Read-only thumbnails, each shown whole (`contain`), no image opened on load."""
    return gr.Gallery(
        images, label=label, object_fit="contain", preview=False, interactive=False, **options
    )


View = Callable[..., tuple[Any, ...]]


def chart_and_table(
    view: View, initial: Sequence[Any], **table_options: Any
) -> tuple[gr.Plot, gr.Dataframe]:
    """A chart above a table, both showing `view(*initial)` (a figure and the frame it plots)."""
    figure, frame = view(*initial)[:2]
    return gr.Plot(figure, show_label=False), table(frame, **table_options)


def bind(controls: Sequence[Any], view: View, outputs: Sequence[Any]) -> None:
    """Redraw `outputs` (charts and tables) from `view` whenever one of `controls` changes."""

    def refresh(*values: Any) -> tuple[Any, ...]:
        return tuple(
            update_table(value) if isinstance(output, gr.Dataframe) else value
            for output, value in zip(outputs, view(*values), strict=True)
        )

    gr.on([c.change for c in controls], refresh, list(controls), list(outputs))
