"""The one path: samples -> requests -> cached responses -> scores -> result datasets.

This module holds the run itself: it locks the output folder, takes the run config through its
phases in order and returns the `RunReport`. Each phase lives in its own module:

1. generate (`vlmscope.runner.generate`, every process): for each model, every track's samples
   are asked; each process computes the same sample list and cache keys, takes its share of the
   requests not yet answered, and commits each chunk of answers to the shared cache before
   sending the next;
2. score (`vlmscope.runner.score`, main process): once every model has answered every track,
   each (model, track) is scored from the cache (judging through the cached judge client),
   summarized into a typed report and written as a result dataset. A pairwise track reads the
   baseline's answers here, so the order of models in the config never matters;
3. aggregate (`vlmscope.runner.score`, main process): each track that has a joint view (one
   rating board over every model of the run) computes it from all models' results and writes
   it as its own dataset.

A killed run restarts where it was: what was committed is reused, what was in flight is asked
again, and the score and aggregate phases rerun from the cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from vlmscope.cache import ResponseCache
from vlmscope.config import RunConfig
from vlmscope.runner.budget import Budget
from vlmscope.runner.budget_run import run_budget, share_budget, whole_budget
from vlmscope.runner.distributed import ProcessGroup, process_group
from vlmscope.runner.generate import TrackReport, generate_model
from vlmscope.runner.model_sources import check_model_sources
from vlmscope.runner.output_lock import OutputLocked, output_lock
from vlmscope.runner.plan import PlannedTrack, plan_tracks
from vlmscope.runner.pricing import Pricer, run_pricer
from vlmscope.runner.score import BoardReport, aggregate_all, score_all
from vlmscope.runner.token_estimate import EstimateSettings

__all__ = ["BoardReport", "RunReport", "TrackReport", "run"]


@dataclass
class RunReport:
    """What a run did: a line per (model, track) and one per joint board (the end-of-run table)."""

    tracks: list[TrackReport] = field(default_factory=list)
    boards: list[BoardReport] = field(default_factory=list)
    output_dir: Path | None = None
    limit: int | None = None


def run(
    config: RunConfig,
    *,
    group: ProcessGroup | None = None,
    source: str = "config",
    estimate: EstimateSettings | None = None,
) -> RunReport:
    """Run every configured model on every configured track; results land in `output_dir`.

    Raises `ConfigError` (naming `source` and the field) before any model is loaded when a
    track is unknown, its options are invalid, a model it needs is not in the run (or, with a
    budget, has no price), or a model's weights can be neither found nor downloaded,
    `OutputLocked` when another run is writing to the same output folder, and `BudgetReached`
    when the budget stopped it (`estimate` says how a request's cost is estimated against it).
    """
    planned = plan_tracks(config, source=source)
    check_model_sources(config, source=source)
    pricer = run_pricer(config)
    settings = estimate or EstimateSettings()
    budget = run_budget(config, pricer, settings, source) if config.budget_usd else None
    owns_group = group is None
    group = group or process_group()
    try:
        with ExitStack() as held:
            _lock_output(config, group, held)
            return _run_locked(config, planned, group, pricer, budget)
    finally:
        if owns_group:
            group.close()


def _lock_output(config: RunConfig, group: ProcessGroup, held: ExitStack) -> None:
    """The main process locks the output folder; every process learns whether it could."""
    problem = ""
    if group.is_main:
        try:
            held.enter_context(output_lock(config.output_dir))
        except OutputLocked as err:
            problem = str(err)
    problems = [p for p in group.gather([problem]) if p]
    if problems:
        raise OutputLocked(problems[0])


def _run_locked(
    config: RunConfig,
    planned: Sequence[PlannedTrack],
    group: ProcessGroup,
    pricer: Pricer,
    budget: Budget | None,
) -> RunReport:
    cache = ResponseCache(config.cache_file)
    report = RunReport(output_dir=Path(config.output_dir), limit=config.limit)
    try:
        shares = share_budget(budget, group)
        for model_config in config.models:
            report.tracks += generate_model(model_config, planned, cache, group, shares)
        budget = whole_budget(budget, shares, group)
        if group.is_main:
            results = score_all(config, planned, report.tracks, cache, pricer, budget)
            report.boards = aggregate_all(config, planned, results)
    finally:
        cache.close()
    return report
