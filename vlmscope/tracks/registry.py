"""The tracks a config may name: one `TrackSpec` per track, found only through this registry.

Built-in tracks are listed once in `_BUILTIN` (adding one = its package, with a light
`spec.py`, + one line there). A track that lives outside the package is a plugin: an installed
distribution declares its spec under the entry-point group `vlmscope.tracks`
(`colours = my_package.colours:SPEC`). A config names tracks by name only; nothing is ever
imported because a config (or a result dataset) spelled a module path.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from vlmscope.tracks.megabench.spec import SPEC as MEGABENCH
from vlmscope.tracks.simplevqa.spec import SPEC as SIMPLEVQA
from vlmscope.tracks.spec import TrackSpec

if TYPE_CHECKING:
    from vlmscope.config import TrackConfig
    from vlmscope.tracks.base import Track

ENTRY_POINT_GROUP = "vlmscope.tracks"
_BUILTIN: tuple[TrackSpec, ...] = (MEGABENCH, SIMPLEVQA)


class UnknownTrack(ValueError):
    """A track name that is neither built in nor declared by an installed plugin."""


class BadPlugin(UnknownTrack):
    """A plugin entry point that does not load, or does not give a `TrackSpec` of its name."""


def track_specs() -> list[TrackSpec]:
    """Built-in tracks in the design's order, then plugins by name (the Space's tab order)."""
    return list(_specs().values())


def track_names() -> list[str]:
    return sorted(_specs())


def track_spec(name: str) -> TrackSpec:
    """The spec of a built-in or plugin track; `UnknownTrack` for anything else."""
    spec = _specs().get(name)
    if spec is None:
        raise UnknownTrack(f"unknown track {name!r}; known: {', '.join(track_names())}")
    return spec


def spec_for_results(track: str) -> TrackSpec | None:
    """The spec of a track named in a result dataset; None for one this installation does not
    know (the Space then shows it with the generic page)."""
    return _specs().get(track)


def build_track(config: TrackConfig, *, limit: int | None) -> Track:
    """Instantiate the configured track; its constructor validates `config.options`."""
    cls = track_spec(config.name).load()
    return cls(config, limit=limit)  # type: ignore[call-arg]


@lru_cache(maxsize=1)
def _specs() -> dict[str, TrackSpec]:
    specs = {spec.name: spec for spec in _BUILTIN}
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if entry.name in specs:
            continue  # a plugin cannot replace a built-in track
        try:
            spec = entry.load()
        except Exception as err:  # noqa: BLE001 - any plugin failure is reported the same way
            raise BadPlugin(
                f"track plugin {entry.name!r} ({entry.value}) does not load: {err}"
            ) from err
        if not isinstance(spec, TrackSpec) or spec.name != entry.name:
            raise BadPlugin(
                f"track plugin {entry.name!r} ({entry.value}) must be a TrackSpec named {entry.name!r}"
            )
        specs[entry.name] = spec
    return specs
