"""Result tracks that a ratings command writes, not a track of the runner: their default names
and the titles the Space gives them (a runner track's title is its `TrackSpec.title`); and the
names of the references, systems and categories a board can be asked for, which the command line
offers in its help without importing any fitting code."""

from __future__ import annotations

from vlmscope.ratings.inputs.filters import BOARD_FILTERS

BATTLES_BOARD = "visionarena"
"""Human-vote boards (`vlmscope visionarena leaderboard`, `vlmscope ratings battles`)."""
VERDICTS_BOARD = "arena-hard"
"""Judge-verdict boards (`vlmscope ratings verdicts` without the ProBench preset)."""
BOARD_TITLES = {BATTLES_BOARD: "VisionArena", VERDICTS_BOARD: "Arena-Hard"}

FASTCHAT = "fastchat"
ARENA_HARD_V01 = "arena-hard-v0.1"
ARENA_HARD_V2 = "arena-hard-v2"
PROBENCH = "probench"
BATTLE_REFERENCES = (FASTCHAT, ARENA_HARD_V01)
"""The references a battle board reproduces (`battle_presets`)."""
VERDICT_REFERENCES = (ARENA_HARD_V01, ARENA_HARD_V2, PROBENCH)
"""The references a verdict board reproduces (`verdict_presets`)."""
SYSTEMS = ("bt", "elo")
FULL_BOARD = "full"
#: Every board filter but "full" (the top-level board itself): the category boards a board can carry.
BATTLE_CATEGORIES: tuple[str, ...] = tuple(name for name in BOARD_FILTERS if name != FULL_BOARD)
