"""The Arena tab: anonymous side-by-side battles whose votes feed the live VisionArena board.

Shown only when `VLMSCOPE_ARENA_CONFIG` names an arena config. The page holds the battle only
as a reference in Gradio's server-side session state (never sent to the browser); every rule
(limits, moderation, who may vote on what) is `vlmscope.arena.service.Arena`'s, and what is
shown comes from `vlmscope.arena.view`. Answers stream into read-only text fields; the names
appear in the page only in the note written after the vote is stored.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import gradio as gr

from vlmscope.arena.battles import VOTES, Battle
from vlmscope.arena.build import build_arena, hub_pusher
from vlmscope.arena.config import Limits, load_arena_config
from vlmscope.arena.rating import rate_store
from vlmscope.arena.safety import Refused, client_address
from vlmscope.arena.service import STORE_PROBLEM, Arena, Update
from vlmscope.arena.view import (
    BoardCache,
    board_categories,
    board_table,
    reveal_note,
    transcript,
    votes_note,
)
from vlmscope.arena.vote_store import StoreFailed
from vlmscope.cli.space.widgets import table, update_table
from vlmscope.leaderboard.rating_view import OVERALL, RATING_COLUMNS
from vlmscope.leaderboard.safe_html import markdown_literal

ENV = "VLMSCOPE_ARENA_CONFIG"
log = logging.getLogger(__name__)
INTRO = (
    "Ask a question about one or more images; two anonymous models answer side by side. "
    "Keep the conversation going if you like (each model keeps its own history), then vote. "
    "The models' names are shown only after your vote, and votes feed the leaderboard below."
)
FAILED_NOTE = "A model failed to answer; press **New battle**."
SETTLE_S = 5.0  # how long the board waits for votes still being saved
VOTE_IDS = {"model_a": "arena-vote-a", "model_b": "arena-vote-b", "tie": "arena-vote-tie",
            "tie (bothbad)": "arena-vote-bothbad"}  # fmt: skip


CLOSED_NOTE = (
    "The arena is closed: its votes cannot be stored right now. Every leaderboard tab works as "
    "usual."
)


@dataclass(frozen=True)
class ArenaClosed:
    """An arena whose vote store cannot be opened: the tab says so, the other tabs stay up."""

    reason: str


def arena_from_env(environ: Mapping[str, str]) -> Arena | ArenaClosed | None:
    """The arena the config names (None without one); closed, with the reason logged, when its
    vote store is damaged or cannot be opened."""
    path = environ.get(ENV)
    if not path:
        return None
    config = load_arena_config(path)
    try:
        return build_arena(config)
    except StoreFailed as err:
        log.error("the arena is closed: %s", err)
        return ArenaClosed(str(err))


def closed_tab() -> None:
    gr.Markdown(CLOSED_NOTE, elem_id="arena-closed")


def _who(request: gr.Request, limits: Limits) -> tuple[str, str]:
    """(session key, client address) of a request."""
    session = request.session_hash or ""
    address = request.client.host if request.client else ""
    if limits.ip_header:
        forwarded = request.headers.get(limits.ip_header, "")
        address = client_address(forwarded, limits.proxy_hops, address)
    return session, address


def _images(files: list[Any], limit: int) -> list[bytes]:
    """The uploaded files' bytes; a file over `limit` is refused before it is read."""
    out = []
    for number, item in enumerate(files or [], 1):
        path = item if isinstance(item, str) else item.get("path", "")
        if os.path.getsize(path) > limit:
            raise Refused(f"File {number} is larger than {limit} bytes.")
        with open(path, "rb") as handle:
            out.append(handle.read())
    return out


def arena_tab(arena: Arena) -> None:
    limits = arena.config.limits
    push = hub_pusher(arena)
    boards = BoardCache(
        partial(
            rate_store,
            arena.store,
            rounds=arena.config.board.bootstrap_rounds,
            min_votes=arena.config.board.min_votes,
        ),
        arena.store.vote_count,
    )
    gr.Markdown(INTRO)
    battle = gr.State(None)  # the battle id, kept on the server
    with gr.Row(equal_height=True):
        side_a = gr.Textbox(
            label="Model A", lines=12, max_lines=40, interactive=False, elem_id="arena-a"
        )
        side_b = gr.Textbox(
            label="Model B", lines=12, max_lines=40, interactive=False, elem_id="arena-b"
        )
    message = gr.MultimodalTextbox(
        file_types=["image"],
        file_count="multiple",
        placeholder="Ask about your images (attach with the clip), then Enter",
        show_label=False,
        max_plain_text_length=limits.max_prompt_chars,
        elem_id="arena-message",
    )
    with gr.Row():
        votes = {
            winner: gr.Button(label, interactive=False, elem_id=VOTE_IDS[winner])
            for label, winner in VOTES.items()
        }
    new = gr.Button("New battle", variant="secondary", elem_id="arena-new")
    status = gr.Markdown(elem_id="arena-status")
    with gr.Accordion("Live leaderboard", open=True):
        count = gr.Markdown("Press **Refresh** to rate the votes so far.", elem_id="arena-votes")
        with gr.Row():
            category = gr.Dropdown([OVERALL], value=OVERALL, label="Category")
            style = gr.Checkbox(False, label="Style control")
            refresh = gr.Button("Refresh", elem_id="arena-refresh")
        board = table(_empty_board(), elem_id="arena-board")
    vote_buttons = list(votes.values())

    def buttons(enabled: bool) -> list[Any]:
        return [gr.update(interactive=enabled) for _ in vote_buttons]

    async def ask(
        sent: dict[str, Any], battle_id: str | None, request: gr.Request
    ) -> AsyncIterator[list[Any]]:
        session, address = _who(request, limits)
        try:
            images = _images(sent.get("files", []), limits.max_image_bytes)
            current = await asyncio.to_thread(
                arena.open_message, session, address, battle_id, sent.get("text", ""), images
            )
        except Refused as refusal:
            yield [battle_id, gr.skip(), gr.skip(), gr.update(interactive=True),
                   *[gr.skip() for _ in vote_buttons], markdown_literal(str(refusal))]  # fmt: skip
            return
        first = True
        async for update in arena.answer(current):
            votable, note = answer_state(update)
            # The first update also clears the sent message (it may be the last one too, when
            # both sides fail before any piece).
            message_update = gr.update(interactive=votable)
            if first:
                first = False
                message_update = gr.update(value=None, interactive=votable)
            yield [update.battle_id, *_sides(current, update), message_update,
                   *buttons(votable), note]  # fmt: skip

    def vote_with(winner: str) -> Callable[..., list[Any]]:
        def vote(battle_id: str | None, request: gr.Request) -> list[Any]:
            session, address = _who(request, limits)
            try:
                reveal = arena.vote(session, address, battle_id, winner)
            except Refused as refusal:
                return [
                    gr.skip(),
                    *[gr.skip() for _ in vote_buttons],
                    markdown_literal(str(refusal)),
                ]
            if push is not None and reveal.stored_now:
                push()
            return [gr.update(interactive=False), *buttons(False), reveal_note(reveal)]

        return vote

    def new_battle() -> list[Any]:
        return [None, "", "", gr.update(value=None, interactive=True), *buttons(False), ""]

    minimum = arena.config.board.min_votes_to_rate

    def show_board(picked: str, style_control: bool) -> list[Any]:
        saving = arena.saving.settle(SETTLE_S)  # a vote cast just before counts
        live = boards.get()
        choices = board_categories(live)
        picked = picked if picked in choices else OVERALL
        frame = board_table(live, picked, style_control, minimum)
        note = votes_note(live, minimum, saving)
        return [note, gr.update(choices=choices, value=picked), update_table(frame)]

    ask_outputs = [battle, side_a, side_b, message, *vote_buttons, status]
    message.submit(ask, [message, battle], ask_outputs, api_name="ask",
                   concurrency_limit=limits.concurrent_answers)  # fmt: skip
    for winner, button in votes.items():
        button.click(vote_with(winner), [battle], [message, *vote_buttons, status],
                     api_name=f"vote_{VOTE_IDS[winner].rsplit('-', 1)[1]}",
                     concurrency_limit=limits.concurrent_answers)  # fmt: skip
    new.click(new_battle, None, ask_outputs, api_name="new_battle")
    board_outputs = [count, category, board]
    gr.on([refresh.click, category.change, style.change], show_board, [category, style],
          board_outputs, api_name="arena_board")  # fmt: skip
    if arena.config.board.refresh_s is not None:
        gr.Timer(arena.config.board.refresh_s).tick(show_board, [category, style], board_outputs)


def answer_state(update: Update) -> tuple[bool, str]:
    """(whether the vote buttons and the next message open, the status line) for an update.

    Both open only when both answers are in; a failed side leaves the battle unvotable, so the
    status line says what to do next.
    """
    if update.unstored:
        return False, markdown_literal(STORE_PROBLEM)
    votable = update.done and not (update.failed_a or update.failed_b)
    failed = update.done and not votable
    return votable, FAILED_NOTE if failed else ""


def _sides(battle: Battle, update: Update) -> tuple[str, str]:
    return transcript(battle, "a", update), transcript(battle, "b", update)


def _empty_board() -> Any:
    import pandas as pd

    return pd.DataFrame(columns=RATING_COLUMNS)
