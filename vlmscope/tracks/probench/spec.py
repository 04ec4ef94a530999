"""ProBench's registration: title, Space page, headline numbers, prompt rebuilder."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.tracks.spec import Headline, TrackSpec

if TYPE_CHECKING:
    from vlmscope.messages import Request
    from vlmscope.tracks.base import Track


def _load() -> type[Track]:
    from vlmscope.tracks.probench.track import ProBenchTrack

    return ProBenchTrack


def rebuild_prompt(meta: Mapping[str, Any], data_dir: Path) -> Request | None:
    """A details row's first turn (question and image), rebuilt from the data by its uuid."""
    from vlmscope.tracks.probench.track import first_turn_request

    row = _rows_by_uuid(data_dir).get(str(meta.get("uuid")))
    return None if row is None else first_turn_request(row)


@lru_cache(maxsize=2)
def _rows_by_uuid(data_dir: Path) -> dict[str, Any]:
    from vlmscope.tracks.probench.rows import read_rows

    return {row.uuid: row for row in read_rows(data_dir)}


SPEC = TrackSpec(
    name="probench",
    title="ProBench",
    load=_load,
    page="probench",
    comparison="judged",
    # ProBench's official score per track: Elo points (baseline at 1114), not 0-1 rates
    headlines=(
        Headline(
            "single-round Elo",
            ("tracks", "singleround", "score"),
            percent=False,
            interval=("tracks", "singleround"),
        ),
        Headline(
            "multi-round Elo",
            ("tracks", "multi-round", "score"),
            percent=False,
            interval=("tracks", "multi-round"),
        ),
        Headline(
            "multi-linguistic Elo",
            ("tracks", "multi-linguistic", "score"),
            percent=False,
            interval=("tracks", "multi-linguistic"),
        ),
    ),
    metrics="Each model against the baseline, judged in both orders on a 5-level verdict: a "
    "style-controlled Bradley-Terry score on the Elo scale with the baseline pinned at 1114, its "
    "95% bootstrap interval, and the win rate against the baseline in %, per track and breakdown.",
    data_env="VLMSCOPE_PROBENCH_DATA",
    rebuild_prompt=rebuild_prompt,
)
