"""What the Space shows of a track by name: its title, its place in the tabs, its headlines.

All of it comes from the track's registration (`vlmscope.tracks.registry`), looked up by the
name found in the results without importing anything by that name. A track this version does
not know still shows: under its own name, after the registered ones, with its summary's first
numbers as headlines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import is_number
from vlmscope.ratings.boards.names import BOARD_TITLES
from vlmscope.tracks.registry import spec_for_results, track_specs
from vlmscope.tracks.spec import Headline

GENERIC_HEADLINES = 2


def track_title(track: str) -> str:
    """A registered track's title, a ratings command's board's title, else the name itself."""
    spec = spec_for_results(track)
    return spec.title if spec is not None else BOARD_TITLES.get(track, track)


def ordered_tracks(tracks: Iterable[str]) -> list[str]:
    """Registered tracks in their registration order, then any other track alphabetically."""
    present = {t for t in tracks if t}
    registered = [spec.name for spec in track_specs() if spec.name in present]
    return registered + sorted(present - set(registered))


def headlines_for(track: str, records: Sequence[SummaryRecord]) -> tuple[Headline, ...]:
    """The spec's headlines; for a track without them, its summary's first scores (numbers in
    0-1, which the overview shows as percentages; tracks put the headline numbers first), so a
    track that lands shows up before it gets its own page. Counts are not scores: `n: 4` would
    read as 400%."""
    spec = spec_for_results(track)
    if spec is not None and spec.headlines:
        return spec.headlines
    first = next((r for r in records if r.track == track), None)
    if first is None:
        return ()
    keys = [k for k, v in first.scores.items() if is_number(v) and 0 <= v <= 1]
    keys = keys[:GENERIC_HEADLINES]
    return tuple(Headline(k, (k,)) for k in keys)
