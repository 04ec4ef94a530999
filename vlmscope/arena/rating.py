"""The live board: the VisionArena leaderboard (`vlmscope.tracks.visionarena.report`)
fitted on the store's votes, so the arena and the published battles are rated alike
(Bradley-Terry with bootstrap intervals, its style-controlled twin, the category boards the
votes can fill). Until the votes link every contestant to every other, the models fall into
groups that never met and share no scale: there is no board yet, and `waiting` says why."""

from __future__ import annotations

from dataclasses import dataclass

from vlmscope.arena.shape import battle_row
from vlmscope.arena.vote_store import VoteStore
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.fits.connected import DisconnectedBattles
from vlmscope.tracks.visionarena.report import ArenaSettings, arena_leaderboard
from vlmscope.tracks.visionarena.rows import battle_record


@dataclass(frozen=True)
class LiveBoard:
    votes: int
    board: RatingBoard | None
    """None until the votes name two models and link them all."""
    waiting: str = ""
    """Why there is no board yet, when the votes name models that never met."""


def rate_store(store: VoteStore, *, rounds: int = 100, min_votes: int = 100) -> LiveBoard:
    records = [battle_record(battle_row(v.record)) for v in store.votes()]
    models = {r["model_a"] for r in records} | {r["model_b"] for r in records}
    if len(models) < 2:
        return LiveBoard(len(records), None)
    settings = ArenaSettings(rounds=rounds, min_votes=min_votes)
    try:
        return LiveBoard(len(records), arena_leaderboard(records, settings))
    except DisconnectedBattles as error:
        return LiveBoard(len(records), None, str(error))
