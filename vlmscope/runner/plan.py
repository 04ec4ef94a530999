"""Check a run config against the tracks it names, before any model is loaded.

`vlmscope.config` only knows the shape of a config; what a track accepts is the track's own
business (its registered class and typed options). This is where the two meet: every track name
must be registered, every track must build with its options, a model a track reads answers
from (a pairwise track's baseline) must be one of the run's models, no model's result
folder may already hold another model's results, and what a track needs from the system
(WordNet for MEGA-Bench's constrained generation) must be there unless the run is told to go
on without it, and the data must hold rows for the track (`vlmscope.runner.data_rows`). Each
problem is a
`ConfigError` naming the field, so a typo fails in a second rather than after generation.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from vlmscope.config import ConfigError, JudgePanelConfig, RunConfig, TrackConfig
from vlmscope.dependencies import Dependency, MissingDependency, missing_message
from vlmscope.hub_data import DataOrigin
from vlmscope.runner.data_rows import check_rows
from vlmscope.runner.option_errors import options_problem
from vlmscope.tracks.base import Track
from vlmscope.tracks.hub_sources import resolve_track_data
from vlmscope.tracks.registry import UnknownTrack, build_track, track_spec
from vlmscope.tracks.spec import TrackSpec


@dataclass(frozen=True)
class PlannedTrack:
    """A configured track, built once for the whole run."""

    config: TrackConfig
    spec: TrackSpec
    track: Track
    missing: tuple[Dependency, ...] = ()
    """System dependencies the run goes on without (`allow_missing_dependencies`)."""
    origin: DataOrigin | None = None
    """Where the track's data came from (Hub repo and commit, or a local folder), with the
    fingerprint of its files; None for the shipped sample."""


def plan_tracks(config: RunConfig, *, source: str = "config") -> list[PlannedTrack]:
    """Build every configured track, or raise `ConfigError` naming the first bad field."""
    model_names = [m.name for m in config.models]
    planned = []
    for index, track_config in enumerate(config.tracks):
        field = f"tracks.{index}"
        try:
            spec = track_spec(track_config.name)
        except UnknownTrack as err:
            raise ConfigError(f"{source}: {field}.name: {err}") from None
        try:
            resolved, origin = resolve_track_data(track_config)
            track = build_track(resolved, limit=config.limit)
        except ValidationError as err:
            problem = options_problem(err, source, field)
            if problem is None:
                raise ConfigError(f"{source}: {field} ({track_config.name}): {err}") from err
            raise ConfigError(problem) from err
        except (ValueError, TypeError, OSError) as err:  # OSError: a data_dir not there
            raise ConfigError(f"{source}: {field} ({track_config.name}): {err}") from err
        check_rows(track, resolved, origin, config.models, f"{source}: {field}")
        if isinstance(track_config.judge, JudgePanelConfig):
            codec = getattr(track, "panel_verdicts", None)
            if codec is None:
                raise ConfigError(
                    f"{source}: {field}.judge: the {track.name} track takes one judge, not a "
                    "panel (its judge replies hold no verdict a panel could compare)"
                )
            if track_config.judge.aggregate == "mean" and not codec.numeric:
                raise ConfigError(
                    f"{source}: {field}.judge.aggregate: mean needs verdicts on a scale; "
                    f"the {track.name} track's are labels: use majority"
                )
        for option, model in track.required_models().items():
            if model not in model_names:
                raise ConfigError(
                    f"{source}: {field}.options.{option}: model {model!r} is not among the "
                    f"run's models (have: {', '.join(model_names)})"
                )
        # imported here, not at the top: the result writer loads `datasets` (seconds), which a
        # bad track name or option does not need to be reported
        from vlmscope.runner.results import ResultConflict, check_owner, result_dir

        for model in model_names:
            try:
                check_owner(result_dir(config.output_dir, model, track.name, config.limit), model)
            except ResultConflict as err:
                raise ConfigError(f"{source}: models: {err}") from None
        missing = tuple(d for d in track.dependencies() if d.missing)
        if missing and not config.allow_missing_dependencies:
            raise MissingDependency(missing_message(track.name, list(missing)))
        planned.append(PlannedTrack(track_config, spec, track, missing, origin))
    return planned
