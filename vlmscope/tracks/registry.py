"""The tracks a config may name: one `TrackSpec` per track, found only through this registry.

Built-in tracks are listed once in `_BUILTIN` (adding one = its package, with a light
`spec.py`, + one line there). A track that lives outside the package is a plugin: an installed
distribution declares its spec under the entry-point group `vlmscope.tracks`
(`colours = my_package.colours:SPEC`). A config names tracks by name only; nothing is ever
imported because a config (or a result dataset) spelled a module path.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from vlmscope.tracks.megabench.spec import SPEC as MEGABENCH
from vlmscope.tracks.probench.spec import SPEC as PROBENCH
from vlmscope.tracks.simplevqa.spec import SPEC as SIMPLEVQA
from vlmscope.tracks.spec import TrackSpec
from vlmscope.tracks.visionarena.spec import SPEC as VISIONARENA_BENCH

if TYPE_CHECKING:
    from vlmscope.config import TrackConfig
    from vlmscope.tracks.base import Track

ENTRY_POINT_GROUP = "vlmscope.tracks"
log = logging.getLogger(__name__)
_BUILTIN: tuple[TrackSpec, ...] = (MEGABENCH, PROBENCH, SIMPLEVQA, VISIONARENA_BENCH)


class UnknownTrack(ValueError):
    """A track name that is neither built in nor declared by an installed plugin."""


class BadPlugin(UnknownTrack):
    """A plugin entry point that does not load, or does not give a `TrackSpec` of its name."""


def track_specs() -> list[TrackSpec]:
    """Built-in tracks in the design's order, then plugins by name (the Space's tab order)."""
    return list(_loaded().specs.values())


def track_names() -> list[str]:
    return sorted(_loaded().specs)


def track_spec(name: str) -> TrackSpec:
    """The spec of a built-in or plugin track; `BadPlugin` for a plugin of that name that is
    broken, `UnknownTrack` for anything else."""
    loaded = _loaded()
    if name in loaded.specs:
        return loaded.specs[name]
    if name in loaded.broken:
        raise BadPlugin(loaded.broken[name])
    from vlmscope.config.hints import did_you_mean  # only on this error path

    hint = did_you_mean(name, track_names())
    raise UnknownTrack(f"unknown track {name!r}{hint}; known: {', '.join(track_names())}")


def spec_for_results(track: str) -> TrackSpec | None:
    """The spec of a track named in a result dataset; None for one this installation does not
    know, or whose plugin is broken (the Space then shows it with the generic page)."""
    return _loaded().specs.get(track)


def build_track(config: TrackConfig, *, limit: int | None) -> Track:
    """Instantiate the configured track; its constructor validates `config.options`."""
    cls = track_spec(config.name).load()
    return cls(config, limit=limit)  # type: ignore[call-arg]


@dataclass(frozen=True)
class _Registry:
    specs: dict[str, TrackSpec]
    broken: dict[str, str]


@lru_cache(maxsize=1)
def _loaded() -> _Registry:
    """Built-in specs, then each plugin's; a plugin that fails is set aside with its reason
    (and logged), so one broken install cannot take every other track, or the Space, down:
    whatever its import raises, `SystemExit` and `KeyboardInterrupt` included. A plugin named
    like a built-in track is not loaded, and the warning names both."""
    specs = {spec.name: spec for spec in _BUILTIN}
    broken: dict[str, str] = {}
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if entry.name in specs:
            builtin = specs[entry.name]
            log.warning(
                "track plugin %r (%s) is not used: %r is vlmscope's built-in track %r",
                entry.name,
                entry.value,
                entry.name,
                builtin.title,
            )
            continue  # a plugin cannot replace a built-in track
        try:
            spec = entry.load()
        except BaseException as err:  # noqa: BLE001 - whatever a plugin's import raises
            what = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            broken[entry.name] = (
                f"track plugin {entry.name!r} ({entry.value}) does not load: {what}"
            )
        else:
            if isinstance(spec, TrackSpec) and spec.name == entry.name:
                specs[entry.name] = spec
                continue
            broken[entry.name] = (
                f"track plugin {entry.name!r} ({entry.value}) must be a TrackSpec named {entry.name!r}"
            )
        log.warning("%s", broken[entry.name])
    return _Registry(specs, broken)
