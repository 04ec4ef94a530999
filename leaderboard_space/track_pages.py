"""One tab per track: MEGA-Bench keywords, SimpleVQA factuality, rating boards, any other track.

A track's page is the rating page when the results hold a board for it, else the page its
registration names (`TrackSpec.page`, through `PAGES`); a track this version does not know gets
the generic page. Each page lays out its controls and binds them to pure functions of
`vlmscope.leaderboard`; a control's value only selects among names the results already hold.
"""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr
import pandas as pd
import plotly.graph_objects as go
from widgets import bind, chart_and_table, dom_id, table

from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.charts import keyword_radar, rate_bars, rating_bars
from vlmscope.leaderboard.rating_view import (
    OVERALL,
    board_note,
    board_view,
    categories,
    has_style_control,
    rating_frame,
    ratings_of,
    style_frame,
    view_label,
)
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.leaderboard.store import ResultStore
from vlmscope.leaderboard.track_info import headlines_for, track_title
from vlmscope.leaderboard.values import number_at
from vlmscope.tracks.registry import spec_for_results
from vlmscope.tracks.spec import PageKind

Page = Callable[[ResultStore, str], None]


def megabench_tab(store: ResultStore, track: str) -> None:
    records = by_model(store.summaries, track)
    gr.Markdown(
        "Scores in %. Keyword breakdown as in the MEGA-Bench paper: mean task score per keyword."
    )
    table(mb.headline_frame(records), elem_id=dom_id(track, "headline"))
    initial = (mb.default_models(records), "skills", False)
    with gr.Row():
        models = gr.Dropdown(
            choices=sorted(records),
            value=initial[0],
            multiselect=True,
            max_choices=3,
            label="Models to compare (up to 3)",
            elem_id=dom_id(track, "models"),
        )
        dimension = gr.Radio(
            [(title, key) for key, title in mb.DIMENSIONS.items()],
            value=initial[1],
            label="Dimension",
            elem_id=dom_id(track, "dimension"),
        )
        single = gr.Checkbox(initial[2], label="Single-image subset")

    def view(picked: list[str], dim: str, single_image: bool) -> tuple[go.Figure, pd.DataFrame]:
        picked = [m for m in picked or [] if m in records]
        frame = mb.keyword_frame(records, picked, dim, single_image=single_image)
        title = mb.DIMENSIONS.get(dim, dim) + (" (single-image)" if single_image else "")
        return keyword_radar(frame, picked, title), frame

    plot, frame = chart_and_table(view, initial, elem_id=dom_id(track, "keywords"))
    bind([models, dimension, single], view, [plot, frame])


def simplevqa_tab(store: ResultStore, track: str) -> None:
    records = by_model(store.summaries, track)
    title = track_title(track)
    gr.Markdown(
        "Rates in % of graded items with 95% bootstrap intervals. CO correct, NA not attempted, "
        "IN incorrect, CGA correct given attempted, F harmonic mean of CO and CGA."
    )
    for kind, note in (
        ("grading", svqa.grading_note(records)),
        ("ungraded", svqa.ungraded_note(records)),
    ):
        if note:
            gr.Markdown(markdown_literal(note), elem_id=dom_id(track, kind))
    initial = ("Overall", "F")
    with gr.Row():
        breakdown = gr.Radio(
            list(svqa.BREAKDOWNS),
            value=initial[0],
            label="Breakdown",
            elem_id=dom_id(track, "breakdown"),
        )
        metric = gr.Radio(list(svqa.METRICS), value=initial[1], label="Metric in the chart")

    def view(by: str, what: str) -> tuple[go.Figure, pd.DataFrame]:
        figure = rate_bars(
            svqa.rate_points(records, by, what), what, f"{title} {what}, {by.lower()}"
        )
        return figure, svqa.factuality_frame(records, by)

    plot, frame = chart_and_table(view, initial, elem_id=dom_id(track, "table"))
    bind([breakdown, metric], view, [plot, frame])


def rating_tab(store: ResultStore, track: str) -> None:
    """The track's rating board: CI bars and table by category, with or without style control,
    and the style coefficients of the category's style-controlled fit."""
    title = track_title(track)
    record = store.boards.get(track)
    if record is None:
        gr.Markdown(f"No rating board for {markdown_literal(title)} in these results.")
        return
    board = record.board
    gr.Markdown(board_note(record, title), elem_id=dom_id(track, "note"))
    with gr.Row():
        category = gr.Dropdown(
            categories(board),
            value=OVERALL,
            label="Category",
            elem_id=dom_id(track, "category"),
        )
        style = gr.Checkbox(
            board.is_style_controlled,
            label="Style control",
            interactive=has_style_control(board),
            elem_id=dom_id(track, "style"),
        )

    def view(cat: str, style_control: bool) -> tuple[go.Figure, pd.DataFrame, pd.DataFrame]:
        shown = board_view(board, cat, style_control=style_control)
        label = view_label(title, cat, style_control, shown)
        coefficients = style_frame(board_view(board, cat, style_control=True))
        return rating_bars(ratings_of(shown), label), rating_frame(shown), coefficients

    figure, frame, coefficients = view(OVERALL, board.is_style_controlled)
    plot = gr.Plot(figure, show_label=False)
    ratings = table(frame, elem_id=dom_id(track, "table"))
    gr.Markdown(
        "Style coefficients of the category's style-controlled fit: the weight of each "
        "standardised style difference (answer tokens, headers, lists, bold) in the log-odds "
        "of a win; positive means voters favour more of it."
    )
    style_table = table(
        coefficients, elem_id=dom_id(track, "style-coefficients"), show_search="none"
    )
    bind([category, style], view, [plot, ratings, style_table])


def generic_tab(store: ResultStore, track: str) -> None:
    """A track without its own page yet: its headline numbers per model."""
    heads = headlines_for(track, store.summaries)
    rows = [
        [r.model, *(number_at(r.scores, *h.keys) for h in heads)]
        for r in store.summaries
        if r.track == track
    ]
    table(
        pd.DataFrame(rows, columns=["Model", *(h.label for h in heads)]),
        elem_id=dom_id(track, "table"),
    )


PAGES: dict[PageKind, Page] = {
    "megabench": megabench_tab,
    "factuality": simplevqa_tab,
    "ratings": rating_tab,
    "generic": generic_tab,
}


def page_for(store: ResultStore, track: str) -> Page:
    """The rating page for a track with a board, else the page its registration names."""
    if track in store.boards:
        return rating_tab
    spec = spec_for_results(track)
    return PAGES[spec.page] if spec is not None else generic_tab
