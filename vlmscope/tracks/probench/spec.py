"""ProBench's registration: title, Space page, headline numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlmscope.tracks.spec import Headline, TrackSpec

if TYPE_CHECKING:
    from vlmscope.tracks.base import Track


def _load() -> type[Track]:
    from vlmscope.tracks.probench.track import ProBenchTrack

    return ProBenchTrack


SPEC = TrackSpec(
    name="probench",
    title="ProBench",
    load=_load,
    page="probench",
    # ProBench's official score per track: Elo points (baseline at 1114), not 0-1 rates
    headlines=(
        Headline("single-round Elo", ("tracks", "singleround", "score"), percent=False),
        Headline("multi-round Elo", ("tracks", "multi-round", "score"), percent=False),
        Headline("multi-linguistic Elo", ("tracks", "multi-linguistic", "score"), percent=False),
    ),
    data_env="VLMSCOPE_PROBENCH_DATA",
)
