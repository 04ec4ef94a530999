"""Two sections several pages share: a pairwise judge's consistency (on the ProBench and
VisionArena-Bench pages) and what each result cost (under the overview).

Only layout lives here; the tables come from `vlmscope.leaderboard.judge_view` and
`vlmscope.leaderboard.ledger_view`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import gradio as gr

from vlmscope.cli.space.widgets import dom_id, table
from vlmscope.leaderboard import judge_view, ledger_view
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.ratings.boards.board import RatingBoard


def consistency_section(
    track: str, board: RatingBoard | None, records: Mapping[str, SummaryRecord]
) -> None:
    """The judge's swap consistency per model and overall, or why there is none."""
    frame = judge_view.consistency_frame(board, records)
    gr.Markdown(judge_view.NOTE)
    if frame.empty:
        gr.Markdown(judge_view.NONE_NOTE, elem_id=dom_id(track, "consistency-note"))
        return
    table(frame, elem_id=dom_id(track, "consistency"), show_search="none", wrap=True)


def cost_section(summaries: Iterable[SummaryRecord]) -> None:
    """Requests, tokens and cost per model and track, when any result has a ledger."""
    frame = ledger_view.cost_frame(summaries)
    if frame.empty:
        return
    gr.Markdown(ledger_view.NOTE)
    table(frame, elem_id="cost-table", show_search="filter", wrap=True)
