"""VisionArena-Bench's registration: title and Space page (its joint board)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlmscope.tracks.spec import TrackSpec

if TYPE_CHECKING:
    from vlmscope.tracks.base import Track


def _load() -> type[Track]:
    from vlmscope.tracks.visionarena.bench import VisionArenaBenchTrack

    return VisionArenaBenchTrack


BENCH_SPEC = TrackSpec(
    name="visionarena_bench",
    title="VisionArena-Bench",
    load=_load,
    page="ratings",
)
