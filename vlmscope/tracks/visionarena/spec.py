"""VisionArena-Bench's registration: title and Space page.

Its page is the VisionArena page (`vlmscope/cli/space/track_pages.py`): the joint board against
the anchor, and the agreement with the human-vote board of `vlmscope visionarena leaderboard`
when the results hold one (that board, not a track of the runner, gets the same page by its
content)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlmscope.tracks.spec import TrackSpec

if TYPE_CHECKING:
    from vlmscope.tracks.base import Track


def _load() -> type[Track]:
    from vlmscope.tracks.visionarena.track import VisionArenaBenchTrack

    return VisionArenaBenchTrack


SPEC = TrackSpec(
    name="visionarena_bench",
    title="VisionArena-Bench",
    load=_load,
    page="visionarena",
    comparison="judged",
    metrics="Each model against the anchor, judged in both orders (arena-hard-auto v0.1): a "
    "Bradley-Terry score on the Elo scale and the win rate against the anchor in %, both with "
    "95% bootstrap intervals; avg_tokens is the mean answer length.",
)
