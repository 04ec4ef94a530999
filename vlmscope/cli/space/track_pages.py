"""One tab per track: MEGA-Bench keywords, SimpleVQA factuality, ProBench, VisionArena, rating
boards, others.

A track's page is the VisionArena page when its board is a human-vote board of `vlmscope
visionarena leaderboard` (it carries the paper's tie shares, thin models and rank changes),
else the page its registration names (`TrackSpec.page`, through `PAGES`) when that page lays out
the track's board itself (`BOARD_PAGES`: ProBench, VisionArena-Bench), else the rating page when
the results hold a board for it, else its registered page; a track this version does not know
gets the generic page. Each page lays out its controls and binds them to pure functions of
`vlmscope.leaderboard`; a control's value only selects among names the results already hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr
import pandas as pd
import plotly.graph_objects as go

from vlmscope.cli.space.judge_sections import consistency_section
from vlmscope.cli.space.visionarena_page import visionarena_tab
from vlmscope.cli.space.widgets import bind, chart_and_table, dom_id, table, update_table
from vlmscope.leaderboard import keyword_intervals as kw
from vlmscope.leaderboard import megabench_headline_ci as mb_ci
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import probench_view as pb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard import visionarena_view as va
from vlmscope.leaderboard.charts import keyword_radar, rate_bars, rating_points
from vlmscope.leaderboard.headline_intervals import NO_CI
from vlmscope.leaderboard.probench_gaps import unfitted_lines
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
from vlmscope.leaderboard.records import SummaryRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.leaderboard.track_info import headlines_for, track_title
from vlmscope.leaderboard.values import number_at
from vlmscope.tracks.registry import spec_for_results

Page = Callable[[ResultStore, str], None]


def megabench_tab(store: ResultStore, track: str) -> None:
    records = by_model(store.summaries, track)
    gr.Markdown(
        "Scores in %. Keyword breakdown as in the MEGA-Bench paper: mean task score per keyword, "
        "with its 95% interval (whiskers on the chart, the same bootstrap as the headline) and "
        "the number of tasks behind it."
    )
    table(mb.headline_frame(records), elem_id=dom_id(track, "headline"), fit=True)
    headline_note = _joined(
        _listed("Headline scores", mb_ci.no_interval_lines(records)),
        _single_image_note(records, sorted(records)),
    )
    if headline_note:
        gr.Markdown(headline_note, elem_id=dom_id(track, "headline-no-ci"))
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

    def view(
        picked: list[str], dim: str, single_image: bool
    ) -> tuple[go.Figure, pd.DataFrame, str]:
        picked = [m for m in picked or [] if m in records]
        frame = mb.keyword_frame(records, picked, dim, single_image=single_image)
        scores = kw.keyword_scores(records, picked, dim, single_image=single_image)
        title = mb.DIMENSIONS.get(dim, dim) + (" (single-image)" if single_image else "")
        figure = keyword_radar(frame, picked, title, scores)
        note = _joined(
            _single_image_note(records, picked) if single_image else "",
            _no_interval_note(scores),
        )
        return figure, kw.with_intervals(frame, scores), note

    plot, frame = chart_and_table(view, initial, elem_id=dom_id(track, "keywords"))
    note = gr.Markdown(view(*initial)[2], elem_id=dom_id(track, "keywords-no-ci"))
    bind([models, dimension, single], view, [plot, frame, note])


def _single_image_note(records: dict[str, SummaryRecord], models: list[str]) -> str:
    """The models without a single-image subset, one line each ("" when all have one)."""
    lines = mb.no_single_image_lines(records, models)
    listed = "\n".join(f"- {markdown_literal(line)}" for line in lines)
    return f"Single-image subset:\n{listed}" if lines else ""


def _joined(*notes: str) -> str:
    return "\n\n".join(note for note in notes if note)


def _no_interval_note(scores: list[kw.KeywordScore]) -> str:
    return _listed("Keyword scores", kw.no_interval_lines(scores))


def _listed(what: str, lines: list[str]) -> str:
    """`what` shown without an interval, one line per number and why ("" when none is)."""
    if not lines:
        return ""
    listed = "\n".join(f"- {markdown_literal(line)}" for line in lines)
    return f"{what} shown without an interval {NO_CI}:\n{listed}"


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

    plot, frame = chart_and_table(view, initial, elem_id=dom_id(track, "table"), fit=True)
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
        return rating_points(ratings_of(shown), label), rating_frame(shown), coefficients

    figure, frame, coefficients = view(OVERALL, board.is_style_controlled)
    plot = gr.Plot(figure, show_label=False)
    ratings = table(frame, elem_id=dom_id(track, "table"))
    styled = has_style_control(board)
    gr.Markdown(STYLE_NOTE if styled else NO_STYLE_NOTE, elem_id=dom_id(track, "style-note"))
    style_table = table(
        coefficients,
        elem_id=dom_id(track, "style-coefficients"),
        show_search="none",
        visible=styled,  # without a style-controlled fit it could only ever be empty
    )
    bind([category, style], view, [plot, ratings, style_table])


STYLE_NOTE = (
    "Style coefficients of the category's style-controlled fit: the weight of each "
    "standardised style difference (answer tokens, headers, lists, bold) in the log-odds "
    "of a win; positive means voters favour more of it."
)
NO_STYLE_NOTE = (
    "No style coefficients: this board was rated without style control "
    "(`vlmscope ratings battles FILE --style-control` fits them)."
)
PROBENCH_NOTE = (
    "**Official** numbers are ProBench's own (`show_result.py`): for each model one "
    "style-controlled Bradley-Terry fit of that model against the baseline alone, baseline "
    "pinned at 1114; the score is an integer, the 95% interval is given as +above / -below, the "
    "win rate is against the baseline (%), tokens are the average answer length. They compare "
    "with the paper, less so between models. The **joint** board fits every model of the run and "
    "the baseline in one style-controlled fit, so its ratings compare between models."
)


def probench_tab(store: ResultStore, track: str) -> None:
    """ProBench: the official table (three tracks side by side), the joint board, and a track
    and breakdown picker showing both kinds of number for one subset."""
    records = by_model(store.summaries, track)
    record = store.boards.get(track)
    board = record.board if record is not None else None
    title = track_title(track)
    gr.Markdown(PROBENCH_NOTE)
    table(
        pb.official_frame(records), elem_id=dom_id(track, "official"), show_search="none", fit=True
    )
    if gaps := unfitted_lines(records):
        listed = "\n".join(f"- {markdown_literal(line)}" for line in gaps)
        gr.Markdown(f"Empty cells above, and why:\n{listed}", elem_id=dom_id(track, "unfitted"))
    if record is not None:  # the joint board over all three tracks
        gr.Markdown(board_note(record, f"{title} joint board"), elem_id=dom_id(track, "note"))
        whole = board_view(record.board, OVERALL, style_control=record.board.is_style_controlled)
        label = view_label(title, "all tracks", True, whole)
        gr.Plot(rating_points(ratings_of(whole), label), show_label=False)
        table(rating_frame(whole), elem_id=dom_id(track, "joint"), show_search="none")
    consistency_section(track, board, records)
    tracks = pb.tracks_of(records, board) or list(pb.TRACKS)
    initial = (tracks[0], pb.WHOLE_TRACK)
    gr.Markdown("### By track and breakdown: official numbers, then the joint board's")
    with gr.Row():
        chat = gr.Radio(
            [(pb.track_label(t), t) for t in tracks],
            value=initial[0],
            label="Track",
            elem_id=dom_id(track, "track"),
        )
        subset = gr.Dropdown(
            pb.breakdown_choices(records, board, initial[0]),
            value=initial[1],
            label="Breakdown",
            elem_id=dom_id(track, "breakdown"),
        )

    def view(chat_type: str, choice: str) -> tuple[Any, ...]:
        shown = pb.joint_view(board, chat_type, choice) if board is not None else None
        label = view_label(title, pb.subset_key(chat_type, choice), True, shown)
        return (
            pb.breakdown_frame(records, chat_type, choice),
            markdown_literal(pb.joint_note(board, chat_type, choice)),
            rating_points(ratings_of(shown), label),
            rating_frame(shown),
        )

    first = view(*initial)
    official = table(
        first[0],
        elem_id=dom_id(track, "subset-official"),
        show_search="none",
        wrap=True,
        column_widths=pb.BREAKDOWN_WIDTHS,
    )
    missing = gr.Markdown(first[1], elem_id=dom_id(track, "subset-note"))
    plot = gr.Plot(first[2], show_label=False)
    joint = table(first[3], elem_id=dom_id(track, "subset-joint"), show_search="none")
    outputs = [official, missing, plot, joint]

    def pick_track(chat_type: str) -> list[Any]:
        choices = pb.breakdown_choices(records, board, chat_type)
        shown = view(chat_type, pb.WHOLE_TRACK)
        return [gr.update(choices=choices, value=pb.WHOLE_TRACK), *_refreshed(outputs, shown)]

    def pick_subset(chat_type: str, choice: str) -> list[Any]:
        return _refreshed(outputs, view(chat_type, choice or pb.WHOLE_TRACK))

    # `.input` fires on user picks only, so a new track's choices do not refresh twice
    chat.input(pick_track, [chat], [subset, *outputs])
    subset.input(pick_subset, [chat, subset], outputs)


def _refreshed(outputs: list[Any], values: tuple[Any, ...]) -> list[Any]:
    return [
        update_table(value) if isinstance(output, gr.Dataframe) else value
        for output, value in zip(outputs, values, strict=True)
    ]


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


PAGES: dict[str, Page] = {  # the only list of page names: a `TrackSpec.page` names one of them
    "megabench": megabench_tab,
    "factuality": simplevqa_tab,
    "ratings": rating_tab,
    "probench": probench_tab,
    "visionarena": visionarena_tab,
    "generic": generic_tab,
}
BOARD_PAGES: frozenset[str] = frozenset({"probench", "visionarena"})
"""Pages that show the track's board themselves (a board does not send the track elsewhere)."""


def page_for(store: ResultStore, track: str) -> Page:
    """The VisionArena page for a human-vote board of `vlmscope visionarena leaderboard`, else
    the page its registration names when that page shows the board itself, else the rating
    page for a track with a board, else the registered page (generic for an unknown track or
    page name)."""
    spec = spec_for_results(track)
    record = store.boards.get(track)
    if record is not None and va.is_arena_board(record.board):
        return visionarena_tab
    if spec is not None and spec.page in BOARD_PAGES:
        return PAGES[spec.page]
    if track in store.boards:
        return rating_tab
    return PAGES.get(spec.page, generic_tab) if spec is not None else generic_tab
