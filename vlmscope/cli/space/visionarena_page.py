"""The VisionArena page: the human-vote board of `vlmscope visionarena leaderboard` (categories,
style control with rank changes, tie shares, style coefficients, a battle browser) or the
VisionArena-Bench board, each with the agreement between the two when the results hold both.

Only Gradio layout and bindings live here; what is shown comes from `vlmscope.leaderboard`'s
`visionarena_view`, `visionarena_bench_view` and `visionarena_battles`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import gradio as gr
import pandas as pd

from vlmscope.cli.space.judge_sections import consistency_section
from vlmscope.cli.space.widgets import dom_id, gallery, table, text, update_table
from vlmscope.leaderboard import visionarena_battles as vbt
from vlmscope.leaderboard import visionarena_bench_view as vbench
from vlmscope.leaderboard import visionarena_view as va
from vlmscope.leaderboard.charts import coefficient_bars, rating_points
from vlmscope.leaderboard.load import OutsideResults, UnreadableConfig, read_config_rows
from vlmscope.leaderboard.rating_view import (
    OVERALL,
    board_note,
    board_view,
    has_style_control,
    ratings_of,
    view_label,
)
from vlmscope.leaderboard.records import BoardRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.leaderboard.track_info import track_title
from vlmscope.tracks.visionarena.spec import SPEC as BENCH_SPEC

ARENA_NOTE = (
    "Human votes rated as FastChat rates the vision leaderboard: one Bradley-Terry fit per "
    "board (all battles, each category, each language), each with a style-controlled twin that "
    "also weighs answer length and markdown. Pick a board; tick **Style control** to see the "
    "twin's ratings and how far each model moves."
)
BENCH_NOTE = (
    "Each model's answers to the bench's prompts judged against the anchor's answers, in both "
    "orders, with the paper's judge prompt (paper Tables 7-8)."
)
AGREEMENT_NOTE = (
    "### Agreement between the leaderboards\n"
    "How far VisionArena-Bench (x) orders the models as the human votes (y, the reference) do, "
    "on the models both boards rate, whole board against whole board (paper Table 4). Each "
    "measure is listed under its own name; `separability_x` / `separability_y` are each "
    "board's share of model pairs whose intervals do not overlap."
)


def visionarena_tab(store: ResultStore, track: str) -> None:
    """VisionArena: the human-vote board with its battle browser, or VisionArena-Bench's board
    (each track keeps its own tab), each with the agreement between the two boards when the
    results hold both."""
    record = store.boards.get(track)
    if record is not None and va.is_arena_board(record.board):
        category = _arena_board(track, record)
        _agreement(store, track)
        _battle_browser(store, track, record, category)
    else:
        _bench_board(track, record)
        if record is not None:
            consistency_section(track, record.board, by_model(store.summaries, track))
            _agreement(store, track)


def _arena_board(track: str, record: BoardRecord) -> gr.Dropdown:
    """The board picker, style toggle, ratings, ties and style coefficients; returns the picker
    (the battle browser follows it)."""
    board, title = record.board, track_title(track)
    gr.Markdown(ARENA_NOTE)
    gr.Markdown(board_note(record, title), elem_id=dom_id(track, "note"))
    summary = va.board_summary(board)
    if summary:
        gr.Markdown(markdown_literal(summary), elem_id=dom_id(track, "summary"))

    def view(cat: str, styled: bool) -> tuple[Any, ...]:
        shown = board_view(board, cat, style_control=styled)
        return (
            va.legend(board, styled),
            markdown_literal(va.missing_note(board, cat, styled)),
            rating_points(ratings_of(shown), view_label(title, va.label_of(cat), styled, shown)),
            va.arena_frame(board, cat, styled),
        )

    category = _picked_view(
        track,
        view,
        va.category_choices(board),
        label="Board",
        style_label="Style control (with each model's rank change)",
        styled=False,
        interactive=has_style_control(board),
    )
    gr.Markdown(
        "### Ties per board\nThe share of each board's battles voted a tie, and a tie (bothbad), "
        "in % (paper Table 2)."
    )
    table(va.tie_frame(board), elem_id=dom_id(track, "ties"), show_search="none", wrap=True)
    gr.Markdown(
        "### Style coefficients per board\nThe weight of each standardised style difference "
        "(answer tokens, headers, lists, bold) in the log-odds of a win, from each board's "
        "style-controlled fit (paper Fig. 6); positive means voters favour more of it. A board "
        "without a style-controlled fit says why."
    )
    styles = va.style_frame(board)
    gr.Plot(coefficient_bars(styles, va.STYLE_FEATURES, f"{title}: style coefficients"))
    table(
        styles,
        elem_id=dom_id(track, "style-coefficients"),
        show_search="none",
        wrap=True,
        # the note wraps
        column_widths=["17%", "8%", "8%", "8%", "8%", "51%"] if va.STYLE_NOTE in styles else None,
    )
    return category


def _picked_view(
    track: str,
    view: Callable[[str, bool], tuple[Any, ...]],
    choices: list[Any],
    *,
    label: str,
    style_label: str,
    styled: bool,
    interactive: bool,
) -> gr.Dropdown:
    """A board picker and a style toggle above the view they pick: the notes (the arena's
    legend, then why a view is missing), chart and table that `view(board, styled)` returns,
    redrawn on each pick. Returns the picker."""
    with gr.Row():
        category = gr.Dropdown(
            choices, value=OVERALL, label=label, elem_id=dom_id(track, "category")
        )
        style = gr.Checkbox(
            styled, label=style_label, interactive=interactive, elem_id=dom_id(track, "style")
        )
    *notes, figure, frame = view(OVERALL, styled)
    parts = ("legend", "missing")[-len(notes) :]
    views: list[Any] = [
        gr.Markdown(n, elem_id=dom_id(track, p)) for p, n in zip(parts, notes, strict=True)
    ]
    views.append(gr.Plot(figure, show_label=False, visible=_drawn(figure)))
    table_id = dom_id(track, "table")
    views.append(table(frame, elem_id=table_id, show_search="none", visible=_drawn(frame)))
    gr.on(
        [category.change, style.change],
        lambda *v: _shown(views, view(*v)),
        [category, style],
        views,
    )
    return category


def _drawn(value: Any) -> bool:
    """Whether a chart or table has anything to show; one that has not is hidden, and the note
    beside it says why (a view that was not fitted is never shown as an empty table)."""
    if isinstance(value, pd.DataFrame):
        return len(value) > 0
    return any(len(getattr(trace, "x", None) or ()) for trace in value.data)


def _shown(outputs: list[Any], values: tuple[Any, ...]) -> list[Any]:
    """`values` as updates of `outputs`: tables with their column types, an empty chart or
    table hidden."""
    updates: list[Any] = []
    for output, value in zip(outputs, values, strict=True):
        if isinstance(output, gr.Dataframe):
            updates.append({**update_table(value), "visible": _drawn(value)})
        elif isinstance(output, gr.Plot):
            updates.append(gr.update(value=value, visible=_drawn(value)))
        else:
            updates.append(value)
    return updates


def _bench_board(track: str, record: BoardRecord | None) -> None:
    """VisionArena-Bench's board: score and win rate against the anchor with their intervals
    (and the answers' average tokens when the board has them), by category, style control."""
    title = track_title(track)
    if record is None:
        gr.Markdown(
            f"No {markdown_literal(title)} board in these results: a run writes it under "
            f"{markdown_literal(f'_boards/{track}')} once at least one model was judged against "
            "the anchor.",
            elem_id=dom_id(track, "note"),
        )
        return
    board = record.board
    gr.Markdown(BENCH_NOTE)
    gr.Markdown(markdown_literal(vbench.bench_description(board)), elem_id=dom_id(track, "about"))
    gr.Markdown(board_note(record, title), elem_id=dom_id(track, "note"))

    def view(cat: str, styled: bool) -> tuple[Any, ...]:
        shown = board_view(board, cat, style_control=styled)
        return (
            markdown_literal(vbench.missing_note(board, cat, styled)),
            rating_points(ratings_of(shown), view_label(title, cat, styled, shown)),
            vbench.bench_frame(board, cat, styled),
        )

    _picked_view(
        track,
        view,
        vbench.categories(board),
        label="Prompt category",
        style_label="Style control",
        styled=board.is_style_controlled,
        interactive=has_style_control(board) and not board.is_style_controlled,
    )


def _agreement(store: ResultStore, track: str) -> None:
    """The agreement panel: the two boards compared, or why they cannot be."""
    arena = next((r.board for r in store.boards.values() if va.is_arena_board(r.board)), None)
    bench = store.boards.get(BENCH_SPEC.name)
    gr.Markdown(AGREEMENT_NOTE)
    missing = vbench.agreement_missing(arena, bench.board if bench is not None else None)
    if arena is None or bench is None:
        gr.Markdown(markdown_literal(missing), elem_id=dom_id(track, "agreement-note"))
        return
    frame, note = vbench.agreement_frame(bench.board, arena)
    if note:
        gr.Markdown(markdown_literal(note), elem_id=dom_id(track, "agreement-note"))
    if len(frame):
        widths = ["24%", *(f"{76 // (len(frame.columns) - 1)}%" for _ in frame.columns[1:])]
        table(
            frame,
            elem_id=dom_id(track, "agreement"),
            show_search="none",
            wrap=True,
            column_widths=widths,
        )


def _battle_browser(
    store: ResultStore, track: str, record: BoardRecord, category: gr.Dropdown
) -> None:
    """One battle of the picked board: the vote, flags and language, and Model A's and Model
    B's conversations side by side, every turn, in read-only text boxes."""
    gr.Markdown(
        "### Battles\nThe battles of the board picked above. The conversations come from the "
        f"VisionArena-Battle folder named by `{vbt.BATTLE_DATA_ENV}` (else the shipped sample): "
        "result datasets store no conversations."
    )
    try:
        rows = read_config_rows(store.location, record.folder, "details")
    except (UnreadableConfig, OutsideResults) as err:
        gr.Markdown(markdown_literal(f"The board's battles do not read: {err}"))
        return
    records = vbt.battle_records(rows)
    data_dir = vbt.battle_data_dir(os.environ)
    names = va.board_names(record.board)

    def show(battle_id: str | None) -> list[Any]:
        found = vbt.find_record(records, battle_id or "")
        if found is None:
            return ["no battle selected", "", "", [], ""]
        shown = vbt.battle_view(found, data_dir, vbt.boards_of(found, names))
        return [shown.summary, shown.side_a, shown.side_b, _pictures(shown.images), shown.note]

    listed, count_note = vbt.battle_choices(records, OVERALL)
    first_id = listed[0][1] if listed else None
    with gr.Row():
        model = gr.Dropdown(
            [vbt.ALL_MODELS, *vbt.models_of(records)],
            value=vbt.ALL_MODELS,
            label="Model",
            elem_id=dom_id(track, "battle-model"),
        )
        battle = gr.Dropdown(
            listed, value=first_id, label="Battle", elem_id=dom_id(track, "battle")
        )
    count = text("Battles listed", lines=1, value=count_note, elem_id=dom_id(track, "battle-count"))
    first = show(first_id)
    summary = text(
        "Vote, language and category flags",
        lines=6,
        value=first[0],
        elem_id=dom_id(track, "battle-summary"),
    )
    with gr.Row(equal_height=True):
        side_a = text("Model A", lines=12, value=first[1], elem_id=dom_id(track, "battle-a"))
        side_b = text("Model B", lines=12, value=first[2], elem_id=dom_id(track, "battle-b"))
    images = gallery(
        first[3], "Images", columns=4, height=240, elem_id=dom_id(track, "battle-images")
    )
    source = text(
        "Conversations from", lines=1, value=first[4], elem_id=dom_id(track, "battle-source")
    )
    shown = [summary, side_a, side_b, images, source]

    def pick_list(cat: str, who: str) -> list[Any]:
        listed, note = vbt.battle_choices(records, cat, who)
        first = listed[0][1] if listed else None
        return [gr.update(choices=listed, value=first), note, *show(first)]

    gr.on([category.change, model.input], pick_list, [category, model], [battle, count, *shown])
    battle.input(show, [battle], shown)


def _pictures(images: list[tuple[bytes, str]]) -> list[Any]:
    import io

    from PIL import Image

    return [(Image.open(io.BytesIO(data)), caption) for data, caption in images]
