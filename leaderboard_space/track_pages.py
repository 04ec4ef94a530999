"""One tab per track: MEGA-Bench keywords, SimpleVQA factuality, rating boards, any other track.

Each function lays out its controls and binds them to pure functions of `vlmscope.leaderboard`;
a control's value only selects among names the results already hold.
"""

from __future__ import annotations

import gradio as gr
import pandas as pd
import plotly.graph_objects as go
from widgets import bind, chart_and_table, dom_id, table

from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.charts import keyword_radar, rate_bars, rating_bars
from vlmscope.leaderboard.overview import headlines_for, track_title
from vlmscope.leaderboard.rating_view import (
    OVERALL,
    board_categories,
    board_ratings,
    has_style_control,
    rating_board,
    rating_frame,
)
from vlmscope.leaderboard.store import ResultStore
from vlmscope.leaderboard.values import number_at


def megabench_tab(store: ResultStore) -> None:
    records = mb.megabench_records(store.summaries)
    gr.Markdown(
        "Scores in %. Keyword breakdown as in the MEGA-Bench paper: mean task score per keyword."
    )
    table(mb.headline_frame(records), elem_id="megabench-headline")
    initial = (mb.default_models(records), "skills", False)
    with gr.Row():
        models = gr.Dropdown(
            choices=sorted(records),
            value=initial[0],
            multiselect=True,
            max_choices=3,
            label="Models to compare (up to 3)",
            elem_id="megabench-models",
        )
        dimension = gr.Radio(
            [(title, key) for key, title in mb.DIMENSIONS.items()],
            value=initial[1],
            label="Dimension",
            elem_id="megabench-dimension",
        )
        single = gr.Checkbox(initial[2], label="Single-image subset")

    def view(picked: list[str], dim: str, single_image: bool) -> tuple[go.Figure, pd.DataFrame]:
        picked = [m for m in picked or [] if m in records]
        frame = mb.keyword_frame(records, picked, dim, single_image=single_image)
        title = mb.DIMENSIONS.get(dim, dim) + (" (single-image)" if single_image else "")
        return keyword_radar(frame, picked, title), frame

    plot, frame = chart_and_table(view, initial, elem_id="megabench-keywords")
    bind([models, dimension, single], view, plot, frame)


def simplevqa_tab(store: ResultStore) -> None:
    records = svqa.simplevqa_records(store.summaries)
    gr.Markdown(
        "Rates in % of graded items with 95% bootstrap intervals. CO correct, NA not attempted, "
        "IN incorrect, CGA correct given attempted, F harmonic mean of CO and CGA."
    )
    initial = ("Overall", "F")
    with gr.Row():
        breakdown = gr.Radio(
            list(svqa.BREAKDOWNS),
            value=initial[0],
            label="Breakdown",
            elem_id="simplevqa-breakdown",
        )
        metric = gr.Radio(list(svqa.METRICS), value=initial[1], label="Metric in the chart")

    def view(by: str, what: str) -> tuple[go.Figure, pd.DataFrame]:
        figure = rate_bars(
            svqa.rate_points(records, by, what), what, f"SimpleVQA {what}, {by.lower()}"
        )
        return figure, svqa.factuality_frame(records, by)

    plot, frame = chart_and_table(view, initial, elem_id="simplevqa-table")
    bind([breakdown, metric], view, plot, frame)


def rating_tab(store: ResultStore, track: str) -> None:
    board = rating_board(store.summaries, track) or {}
    title = track_title(track)
    gr.Markdown(
        f"{title} ratings (Bradley-Terry) with 95% bootstrap intervals. A model's rank is one plus "
        "the number of models whose whole interval lies above its own."
    )
    with gr.Row():
        category = gr.Dropdown(
            board_categories(board),
            value=OVERALL,
            label="Category",
            elem_id=dom_id(track, "category"),
        )
        style = gr.Checkbox(
            False,
            label="Style control",
            interactive=has_style_control(board),
            elem_id=dom_id(track, "style"),
        )

    def view(cat: str, style_control: bool) -> tuple[go.Figure, pd.DataFrame]:
        ratings = board_ratings(board, cat, style_control=style_control)
        label = f"{title}, {cat}" + (", style control" if style_control else "")
        if not ratings:
            label += ": not reported"
        return rating_bars(ratings, label), rating_frame(ratings)

    plot, frame = chart_and_table(view, (OVERALL, False), elem_id=dom_id(track, "table"))
    bind([category, style], view, plot, frame)


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
