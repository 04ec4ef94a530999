"""Everything the rest of the system knows about a track, in one object per track.

The runner needs the track's class (and through it the options type), the leaderboard needs its
title, headline numbers, which page lays it out, and how to rebuild a browsed sample's prompt
from the benchmark data. Each track package declares one `TrackSpec` in its `spec.py`, which
imports nothing heavy: the track's code is imported on first use (`load`), so the Space starts
without loading any track. `vlmscope.tracks.registry` lists the specs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlmscope.messages import Request
    from vlmscope.tracks.base import Track

PromptRebuilder = Callable[["Mapping[str, Any]", Path], "Request | None"]


@dataclass(frozen=True)
class Headline:
    """One headline column: a label and the key path of a number in the track summary, a 0-1
    score shown as a percentage, or (`percent=False`) a number on its own scale shown as it is
    (ProBench's Elo points), and where its interval is."""

    label: str
    keys: tuple[str, ...]
    percent: bool = True
    interval: tuple[str, ...] | None = None
    """The key path of the number's 95% interval in the summary: a `[lower, upper]` pair or a
    mapping with `lower` and `upper`; None when the track reports none (the Space marks the
    number as having no interval, and says why: `no_interval`)."""
    no_interval: str = "the track reports no interval for this number"


@dataclass(frozen=True)
class TrackSpec:
    name: str
    title: str
    load: Callable[[], type[Track]]
    """Imports the track's module and returns its class (called on first use)."""
    page: str = "generic"
    """The name of the Space page that lays the track out. The Space keeps its pages by name
    (`vlmscope/cli/space/track_pages.py`, `PAGES`); a name it does not hold gets the generic
    table of headline numbers, so a track never waits on the Space to be shown."""
    comparison: str = "generic"
    """How `vlmscope compare` pairs two models' results: the name of a comparison of
    `vlmscope.leaderboard.compare` (`megabench`, `factuality`, `judged`, `battles`); a name it
    does not hold gets the generic one (each per-sample score's mean, paired)."""
    headlines: tuple[Headline, ...] = ()
    """Overview columns; empty = the summary's first numbers (a new track shows up as is)."""
    metrics: str = ""
    """What the track's numbers are and on which scale, in a sentence or two: every result
    card of the track states it, so a downloaded summary explains itself."""
    data_env: str | None = None
    """Environment variable naming the benchmark data the Space rebuilds prompts from."""
    rebuild_prompt: PromptRebuilder | None = None
    """A browsed sample's request rebuilt from its details `meta` and the data folder."""
