"""Track names and where their code lives, imported on first use.

A config names a track by its registered name, or by `package.module:Class` for a track that
lives outside the package (the test suite's small track, a user's own).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vlmscope.config import TrackConfig
    from vlmscope.tracks.base import Track

TRACKS: dict[str, str] = {
    "megabench": "vlmscope.tracks.megabench.track:MegaBenchTrack",
    "simplevqa": "vlmscope.tracks.simplevqa.track:SimpleVQATrack",
}


def track_names() -> list[str]:
    return sorted(TRACKS)


def is_known(name: str) -> bool:
    return name in TRACKS or ":" in name


def track_class(name: str) -> type[Track]:
    target = TRACKS.get(name, name)
    module_name, _, class_name = target.partition(":")
    if not class_name:
        raise ValueError(f"unknown track {name!r}; known: {', '.join(track_names())}")
    module = importlib.import_module(module_name)
    cls: type[Track] = getattr(module, class_name)
    return cls


def build_track(config: TrackConfig, *, limit: int | None) -> Track:
    """Instantiate the configured track; its constructor validates `config.options`."""
    cls = track_class(config.name)
    return cls(config, limit=limit)  # type: ignore[call-arg]
