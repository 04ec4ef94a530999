"""The tracks a config may name: one `TrackSpec` per track package, registered here once.

Adding a track = its package (with a light `spec.py`) + one line in `_BUILTIN`. A config may
also name a track class outside the package as `package.module:Class` (the test suite's small
tracks, a user's own); such a class may carry its own `SPEC`, else it gets a generic one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from vlmscope.tracks.megabench.spec import SPEC as MEGABENCH
from vlmscope.tracks.simplevqa.spec import SPEC as SIMPLEVQA
from vlmscope.tracks.spec import TrackSpec

if TYPE_CHECKING:
    from vlmscope.config import TrackConfig
    from vlmscope.tracks.base import Track

_BUILTIN: tuple[TrackSpec, ...] = (MEGABENCH, SIMPLEVQA)
_SPECS: dict[str, TrackSpec] = {spec.name: spec for spec in _BUILTIN}


class UnknownTrack(ValueError):
    """A track name that is neither registered nor a `module:Class` path that imports."""


def track_specs() -> list[TrackSpec]:
    """The registered tracks, in the design's order (the Space shows them in this order)."""
    return list(_SPECS.values())


def track_names() -> list[str]:
    return sorted(_SPECS)


def track_spec(name: str) -> TrackSpec:
    """The spec of a registered track, or of a `module:Class` track (imported here)."""
    if name in _SPECS:
        return _SPECS[name]
    module_name, _, class_name = name.partition(":")
    if not class_name:
        raise UnknownTrack(f"unknown track {name!r}; known: {', '.join(track_names())}")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as err:
        raise UnknownTrack(f"track {name!r} cannot be imported: {err}") from None
    spec = getattr(cls, "SPEC", None)
    if isinstance(spec, TrackSpec):
        return spec
    return TrackSpec(name=getattr(cls, "name", name), title=name, load=lambda: cls)


def spec_for_results(track: str) -> TrackSpec | None:
    """The spec of a track named in a result dataset; None for one this version does not know
    (the Space then shows it with the generic page). Never imports anything by that name."""
    return _SPECS.get(track)


def build_track(config: TrackConfig, *, limit: int | None) -> Track:
    """Instantiate the configured track; its constructor validates `config.options`."""
    cls = track_spec(config.name).load()
    return cls(config, limit=limit)  # type: ignore[call-arg]
