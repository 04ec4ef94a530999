"""Result tracks that a ratings command writes, not a track of the runner: their default names
and the titles the Space gives them (a runner track's title is its `TrackSpec.title`)."""

from __future__ import annotations

BATTLES_BOARD = "visionarena"
"""Human-vote boards (`vlmscope visionarena leaderboard`, `vlmscope ratings battles`)."""
VERDICTS_BOARD = "arena-hard"
"""Judge-verdict boards (`vlmscope ratings verdicts` without the ProBench preset)."""
BOARD_TITLES = {BATTLES_BOARD: "VisionArena", VERDICTS_BOARD: "Arena-Hard"}
