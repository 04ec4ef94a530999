"""What the Arena tab shows, as pure functions of the arena's state (text, never markup).

Each side is one read-only text field holding its conversation as plain text, so a model's
answer (or a prompt) containing HTML or script is shown as the characters it is. The names
appear only in `reveal_note`, after the vote is stored; everything shown before refers to the
sides as "Model A" and "Model B".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import pandas as pd

from vlmscope.arena.battles import VOTES, Battle
from vlmscope.arena.rating import LiveBoard
from vlmscope.arena.service import Reveal, Update
from vlmscope.arena.vote_store import StoreFailed
from vlmscope.leaderboard.rating_view import (
    MIN_VOTES_TO_RATE,
    OVERALL,
    TOO_FEW,
    board_view,
    categories,
    rating_frame,
)
from vlmscope.leaderboard.safe_html import as_text, markdown_literal

log = logging.getLogger(__name__)
UNREADABLE_STORE = "the vote store cannot be read right now"

LABELS = {winner: label for label, winner in VOTES.items()}
FAILED = "(this model failed to answer; start a new battle)"


def transcript(battle: Battle | None, side: str, update: Update | None = None) -> str:
    """One side's conversation: every finished exchange, then the live answer of `update`."""
    blocks: list[str] = []
    exchanges = battle.exchanges if battle else ()
    for k, exchange in enumerate(exchanges):
        answer = exchange.answer(side)
        last = k == len(exchanges) - 1
        if last and update is not None:
            answer = update.text_a if side == "a" else update.text_b
            if update.done and (update.failed_a if side == "a" else update.failed_b):
                answer = FAILED
        shown = f"{len(exchange.images)} image(s) + " if exchange.images else ""
        blocks.append(f"You ({shown}text): {exchange.text}")
        blocks.append(f"Model {side.upper()}: {answer or ''}")
    return as_text("\n\n".join(blocks))


def reveal_note(reveal: Reveal) -> str:
    stored = "Your vote is recorded." if reveal.stored_now else "This vote was already recorded."
    return (
        f"**Model A** was {markdown_literal(reveal.model_a)}; **Model B** was "
        f"{markdown_literal(reveal.model_b)}. Vote: {LABELS[reveal.winner]}. {stored} "
        "Press **New battle** for another."
    )


def votes_note(live: LiveBoard, minimum: int = MIN_VOTES_TO_RATE, saving: int = 0) -> str:
    """How many votes the board holds (and how many are still being saved), and whether it
    rates them yet: under `minimum` votes it lists the models with "too few votes to rate"."""
    counted = f"{live.votes} vote(s)" + (f" (+{saving} being saved)" if saving else "")
    if live.board is None and live.waiting:
        return f"{counted} so far; no board yet: {markdown_literal(live.waiting)}."
    if live.board is None:
        return f"{counted} so far; the board needs votes on two models."
    if live.votes < minimum:
        return f"{counted} so far: {TOO_FEW} (the board shows ratings from {minimum} votes)."
    return (
        f"{counted}, rated with Bradley-Terry (95% bootstrap intervals, "
        f"{live.board.settings.rounds} rounds), as the VisionArena leaderboard."
    )


def board_table(
    live: LiveBoard,
    category: str = OVERALL,
    style_control: bool = False,
    minimum: int = MIN_VOTES_TO_RATE,
) -> pd.DataFrame:
    """The live board's view as a table; no ratings while it holds under `minimum` votes (a
    category's view counts its own votes)."""
    view = (
        None
        if live.board is None
        else board_view(live.board, category, style_control=style_control)
    )
    return rating_frame(view, minimum)


def board_categories(live: LiveBoard) -> list[str]:
    return [OVERALL] if live.board is None else categories(live.board)


class BoardCache:
    """The last board, re-rated only when the number of votes changed (a timer refreshing
    an idle board costs one COUNT query)."""

    def __init__(self, rate: Callable[[], LiveBoard], count: Callable[[], int]) -> None:
        self._rate = rate
        self._count = count
        self._lock = threading.Lock()
        self._live: LiveBoard | None = None

    def get(self) -> LiveBoard:
        """The board; while the store cannot be read, the last one (or none) saying so."""
        with self._lock:
            try:
                if self._live is None or self._live.votes != self._count():
                    self._live = self._rate()
            except StoreFailed as err:
                log.error("%s", err)
                votes = 0 if self._live is None else self._live.votes
                return LiveBoard(votes, None, UNREADABLE_STORE)
            return self._live
