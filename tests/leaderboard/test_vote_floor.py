"""A board with too few votes lists its models without numbers, on the track pages and in the
live arena; a Refresh waits for a vote still being saved."""

from __future__ import annotations

import threading
import time

import pandas as pd

from vlmscope.arena.in_flight import InFlight
from vlmscope.arena.rating import LiveBoard
from vlmscope.arena.view import board_table, votes_note
from vlmscope.leaderboard.charts import rating_points
from vlmscope.leaderboard.rating_view import (
    MIN_VOTES_TO_RATE,
    TOO_FEW,
    rating_frame,
    ratings_of,
    too_few_votes,
    view_label,
)
from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_battles
from vlmscope.ratings.boards.board import RatingBoard


def board_of(n_votes: int) -> RatingBoard:
    """`n_votes` human battles between two models, `a` winning two in three."""
    winners = ("model_a", "model_a", "model_b")
    battles = [{"model_a": "a", "model_b": "b", "winner": winners[i % 3]} for i in range(n_votes)]
    return RatingBoard.from_json(rate_battles(battles, BattleSettings(rounds=20, seed=1)))


def test_one_vote_is_too_few_to_rate() -> None:
    board = board_of(1)
    assert too_few_votes(board) and ratings_of(board) == {}
    frame = rating_frame(board)
    assert frame["Model"].tolist() == ["a", "b"] and set(frame["95% CI"]) == {TOO_FEW}
    assert frame[["Rank", "Rating", "Win rate"]].isna().all().all()
    assert frame["Battles"].tolist() == [1, 1]
    assert f"{TOO_FEW} (1 of the {MIN_VOTES_TO_RATE} it needs)" in view_label(
        "x", "all", False, board
    )
    assert len(rating_points(ratings_of(board), "x").data[0].x) == 0  # an empty chart


def test_enough_votes_show_the_ratings() -> None:
    board = board_of(MIN_VOTES_TO_RATE)
    assert not too_few_votes(board)
    frame = rating_frame(board)
    assert frame["Model"].tolist() == ["a", "b"]  # a won two in three
    assert pd.api.types.is_numeric_dtype(frame["Rating"]) and frame["Rating"].notna().all()
    assert TOO_FEW not in set(frame["95% CI"])


def test_the_live_board_says_too_few_until_its_minimum() -> None:
    few, enough = LiveBoard(2, board_of(2)), LiveBoard(3, board_of(3))
    note = votes_note(few, minimum=3, saving=1)
    assert note.startswith("2 vote(s) (+1 being saved) so far: too few votes to rate")
    assert set(board_table(few, minimum=3)["95% CI"]) == {TOO_FEW}
    assert "rated with Bradley-Terry" in votes_note(enough, minimum=3)
    assert board_table(enough, minimum=3)["Rating"].notna().all()


def test_settle_waits_for_a_vote_being_saved() -> None:
    saving = InFlight()
    started, release = threading.Event(), threading.Event()

    def vote() -> None:
        with saving.holding():
            started.set()
            release.wait(10)

    voter = threading.Thread(target=vote)
    voter.start()
    started.wait(10)
    assert saving.settle(0.05) == 1  # still being saved: the note says so
    threading.Timer(0.2, release.set).start()
    begun = time.monotonic()
    assert saving.settle(10) == 0  # waited for it
    assert time.monotonic() - begun < 5
    voter.join()
