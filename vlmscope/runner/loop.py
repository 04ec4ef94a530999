"""The one path: samples -> requests -> cached responses -> scores -> result datasets.

A run has three phases:

1. generate: for each model, every track's samples are asked; each process computes the same
   sample list and cache keys, takes its share of the requests not yet answered, and commits
   each chunk of answers to the shared cache before sending the next;
2. score (main process): once every model has answered every track, each (model, track) is
   scored from the cache (judging through the cached judge client), summarized into a typed
   report and written as a result dataset. A pairwise track reads the baseline's answers here,
   so the order of models in the config never matters;
3. aggregate (main process): each track that has a joint view (one rating board over every
   model of the run) computes it from all models' results and writes it as its own dataset.

A killed run restarts where it was: what was committed is reused, what was in flight is asked
again, and the score and aggregate phases rerun from the cache.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tqdm.auto import tqdm

from vlmscope.cache import ResponseCache
from vlmscope.config import ModelConfig, OracleModelConfig, RunConfig
from vlmscope.judges.client import Judge
from vlmscope.messages import Request, Response, cache_key
from vlmscope.models.base import Backend
from vlmscope.models.registry import build_backend, commit_every
from vlmscope.ratings.fit_checks import FitError
from vlmscope.runner.distributed import ProcessGroup, local_device, process_group
from vlmscope.runner.output_lock import OutputLocked, output_lock
from vlmscope.runner.plan import PlannedTrack, plan_tracks
from vlmscope.runner.results import (
    BoardResult,
    TrackResult,
    board_dir,
    write_board_result,
    write_result,
)
from vlmscope.runner.run_facts import generation_facts
from vlmscope.tracks.base import ModelResult, Sample, Scored, ScoringContext, Track
from vlmscope.tracks.conversation import reference_turns, turn_count, walk_conversations

log = logging.getLogger(__name__)


@dataclass
class TrackReport:
    """What one (model, track) run did; one line of the end-of-run table."""

    model: str
    track: str
    total: int = 0
    cached: int = 0
    generated: int = 0
    failed: int = 0
    by_rank: dict[int, int] = field(default_factory=dict)
    batching: list[str] = field(default_factory=list)  # how the model's batching fell back
    summary: dict[str, Any] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    result_dir: Path | None = None
    seconds: float = 0.0
    started_at: str = ""


@dataclass
class BoardReport:
    """A track's joint board over every model of the run, or why it could not be fitted."""

    track: str
    models: int
    result_dir: Path | None
    error: str | None = None


@dataclass
class RunReport:
    tracks: list[TrackReport] = field(default_factory=list)
    boards: list[BoardReport] = field(default_factory=list)
    output_dir: Path | None = None
    limit: int | None = None


def run(
    config: RunConfig, *, group: ProcessGroup | None = None, source: str = "config"
) -> RunReport:
    """Run every configured model on every configured track; results land in `output_dir`.

    Raises `ConfigError` (naming `source` and the field) before any model is loaded when a
    track is unknown, its options are invalid, or a model it needs is not in the run, and
    `OutputLocked` when another run is writing to the same output folder.
    """
    planned = plan_tracks(config, source=source)
    owns_group = group is None
    group = group or process_group()
    try:
        with ExitStack() as held:
            _lock_output(config, group, held)
            return _run_locked(config, planned, group)
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
    config: RunConfig, planned: Sequence[PlannedTrack], group: ProcessGroup
) -> RunReport:
    cache = ResponseCache(config.cache_file)
    report = RunReport(output_dir=Path(config.output_dir), limit=config.limit)
    try:
        for model_config in config.models:
            report.tracks += _generate_model(model_config, planned, cache, group)
        if group.is_main:
            results = _score_all(config, planned, report.tracks, cache)
            report.boards = _aggregate_all(config, planned, results)
    finally:
        cache.close()
    return report


# --- phase 1: generate -------------------------------------------------------------------------


def _generate_model(
    model_config: ModelConfig,
    planned: Sequence[PlannedTrack],
    cache: ResponseCache,
    group: ProcessGroup,
) -> list[TrackReport]:
    """Every track's requests of one model; the backend is loaded once for all of them."""
    samples_by_track = [p.track.samples(model_config) for p in planned]
    references = (
        {
            request.content_hash(): reference
            for samples in samples_by_track
            for s in samples
            for request, reference in reference_turns(s)
        }
        if isinstance(model_config, OracleModelConfig)  # only the oracle answers with them
        else None
    )
    backend = build_backend(model_config, device=local_device(), references=references)
    reports = []
    for plan, samples in zip(planned, samples_by_track, strict=True):
        reports.append(_generate_track(model_config, plan.track, samples, backend, cache, group))
    del backend
    return reports


def _generate_track(
    model_config: ModelConfig,
    track: Track,
    samples: Sequence[Sample],
    backend: Backend,
    cache: ResponseCache,
    group: ProcessGroup,
) -> TrackReport:
    """Ask every turn of every sample that is not answered yet, in rounds.

    A round asks each conversation's next unanswered turn, so single-turn samples take one
    round and a conversation of k turns k rounds. A failure cached by an earlier run is asked
    again once; a failure from this run stands (and ends its conversation).
    """
    started = time.monotonic()
    identity = backend.identity
    asked: set[str] = set()

    def answered(requests: list[Request]) -> list[Response | None]:
        keys = [cache_key(identity, r) for r in requests]
        stored = cache.get_many(keys)
        return [
            found if found is not None and (found.ok or key in asked) else None
            for key, found in ((key, stored.get(key)) for key in keys)
        ]

    report = TrackReport(
        model=model_config.name,
        track=track.name,
        total=sum(turn_count(s) for s in samples),
        started_at=_now(),
    )
    conversations = walk_conversations(samples, answered)
    report.cached = sum(len(c.responses) for c in conversations)
    multi_turn = any(s.followups for s in samples)
    bar = tqdm(
        total=report.total,
        initial=report.cached,
        desc=f"{report.model} / {report.track}",
        unit="req",
        disable=not group.is_main,
        dynamic_ncols=True,
    )
    with bar:
        while requests := [c.next_request for c in conversations if c.next_request is not None]:
            keys = [cache_key(identity, r) for r in requests]
            pending = sorted(range(len(requests)), key=lambda i: _size_hint(requests[i]))
            # Every process must split the same pending list: none may commit an answer before
            # all have read the cache, or a slower process would skip work a faster one never took.
            group.barrier()
            mine = group.share(pending)
            handled = _answer(
                mine, requests, keys, backend, cache, commit_every(model_config), group, bar
            )
            for rank, n in group.gather([(group.rank, handled)]):
                report.by_rank[rank] = report.by_rank.get(rank, 0) + n
            asked.update(keys)
            group.barrier()
            if not multi_turn:  # every sample answered in one round: nothing left to find
                break
            conversations = walk_conversations(samples, answered)
    report.generated = sum(report.by_rank.values())
    notes = backend.batching_notes if isinstance(backend, SortsBatches) else []
    report.batching = list(dict.fromkeys(group.gather(notes)))  # every process's, once each
    report.seconds = time.monotonic() - started
    return report


@runtime_checkable
class SortsBatches(Protocol):
    """A local model that forms its own batches: it sorts requests by prompt length over a
    window of several batches and hands back each batch's answers, with their indices, before
    it forms the next (`HFBackend`)."""

    sort_window: int

    def generate_batches(
        self,
        requests: Sequence[Request],
        on_batch: Callable[[Sequence[int], Sequence[Response]], None],
    ) -> None: ...

    @property
    def batching_notes(self) -> list[str]: ...


def _answer(
    mine: list[int],
    requests: Sequence[Request],
    keys: Sequence[str],
    backend: Backend,
    cache: ResponseCache,
    chunk_size: int,
    group: ProcessGroup,
    bar: tqdm,
) -> int:
    """Answer this process's share, committing answers as they arrive.

    Backends hand finished answers to `on_done` in request order (a local model after each
    batch, an API as soon as the next ones in order are in), and each hand-over is committed
    before the backend goes on; what a backend never handed over is committed when it returns.
    A backend that sorts its own batches gets the whole share at once, so it can sort across
    many batches, and hands back each batch (in any order) before it runs the next: a killed
    run still loses at most the batch in flight.
    """
    failed = 0

    def commit(indices: Sequence[int], responses: Sequence[Response]) -> None:
        nonlocal failed
        cache.put_many(
            {keys[i]: r for i, r in zip(indices, responses, strict=True)}, backend=backend.name
        )
        failed += sum(not r.ok for r in responses)
        bar.update(len(responses) * group.world_size)
        bar.set_postfix(failed=failed, refresh=False)

    if isinstance(backend, SortsBatches):
        backend.generate_batches(
            [requests[i] for i in mine],
            lambda positions, responses: commit([mine[p] for p in positions], responses),
        )
        return len(mine)
    for start in range(0, len(mine), chunk_size):
        chunk = mine[start : start + chunk_size]
        committed = 0

        def in_order(responses: Sequence[Response], chunk: list[int] = chunk) -> None:
            nonlocal committed
            commit(chunk[committed : committed + len(responses)], responses)
            committed += len(responses)

        responses = backend.generate([requests[i] for i in chunk], on_done=in_order)
        if committed < len(chunk):
            in_order(responses[committed:])
    return len(mine)


# --- phase 2: score ----------------------------------------------------------------------------


def _score_all(
    config: RunConfig,
    planned: Sequence[PlannedTrack],
    reports: Sequence[TrackReport],
    cache: ResponseCache,
) -> dict[str, dict[str, ModelResult]]:
    """Score and write every (model, track); returns each track's results by model."""
    judges = _Judges(cache)
    answers = _CachedResponses(config, cache)
    by_pair = {(r.model, r.track): r for r in reports}
    results: dict[str, dict[str, ModelResult]] = {p.track.name: {} for p in planned}
    for model_config in config.models:
        for plan in planned:
            report = by_pair[(model_config.name, plan.track.name)]
            judge = judges.get(plan.config.judge) if plan.config.judge is not None else None
            result = _score_one(config, model_config, plan, judge, answers, cache, report)
            results[plan.track.name][model_config.name] = result
    return results


def _score_one(
    config: RunConfig,
    model_config: ModelConfig,
    plan: PlannedTrack,
    judge: Judge | None,
    answers: _CachedResponses,
    cache: ResponseCache,
    report: TrackReport,
) -> ModelResult:
    started = time.monotonic()
    track = plan.track
    samples = track.samples(model_config)
    identity = answers.identity(model_config.name)

    def stored(requests: list[Request]) -> list[Response | None]:
        keys = [cache_key(identity, r) for r in requests]
        found = cache.get_many(keys)
        return [found.get(k) for k in keys]

    conversations = walk_conversations(samples, stored)
    missing = [s.id for s, c in zip(samples, conversations, strict=True) if c.next_request]
    if missing:
        raise RuntimeError(f"{len(missing)} responses missing after generation: {missing[:5]}")
    responses = [c.final for c in conversations if c.final is not None]
    report.failed = sum(not r.ok for r in responses)
    context = ScoringContext(model=model_config.name, judge=judge, responses_of=answers.get)
    scored = _score(track, samples, responses, context)
    track_report = track.summarize(samples, scored)
    summary = track_report.summary()
    summary["generation"] = generation_facts(samples, identity)
    if report.batching:  # batches that failed, and what the backend did instead (not scores)
        summary["generation"]["batching_fallback"] = report.batching
    if judge is not None:
        summary["judge"] = judge.describe(track.judge_settings)
    if plan.missing:
        summary["degraded"] = [d.to_json() for d in plan.missing]
    result = TrackResult(
        model=model_config.name,
        track=track.name,
        samples=samples,
        responses=responses,
        request_hashes=[s.request.content_hash() for s in samples],
        scored=scored,
        summary=summary,
        config_hash=config.config_hash(),
        started_at=report.started_at,
        finished_at=_now(),
        limit=config.limit,
        run_counts={
            "cached": report.cached,
            "generated": report.generated,
            "failed": report.failed,
            "by_rank": {str(k): v for k, v in report.by_rank.items()},
        },
    )
    report.result_dir = write_result(config.output_dir, result)
    track_report.write_files(report.result_dir)
    report.summary = summary
    report.outcomes = dict(sorted(_count(s.outcome for s in scored).items()))
    report.seconds += time.monotonic() - started
    return ModelResult(model_config.name, samples, responses, scored, track_report)


def _score(
    track: Track, samples: Sequence[Sample], responses: Sequence[Response], context: ScoringContext
) -> list[Scored]:
    async def score_all() -> list[Scored]:
        bar = tqdm(
            total=len(samples), desc=f"scoring {track.name}", unit="sample", dynamic_ncols=True
        )

        async def one(sample: Sample, response: Response) -> Scored:
            scored = await track.score(sample, response, context)
            bar.update(1)
            return scored

        try:
            return list(
                await asyncio.gather(*(one(s, r) for s, r in zip(samples, responses, strict=True)))
            )
        finally:
            bar.close()

    return asyncio.run(score_all())


# --- phase 3: aggregate ------------------------------------------------------------------------


def _aggregate_all(
    config: RunConfig,
    planned: Sequence[PlannedTrack],
    results: dict[str, dict[str, ModelResult]],
) -> list[BoardReport]:
    boards = []
    for plan in planned:
        started_at = _now()
        try:
            joint = plan.track.aggregate(results[plan.track.name])
        except FitError as err:
            # every per-model result is already written; the board alone cannot be fitted
            # (e.g. a style feature that never varies), and the run says so instead of failing
            log.error("%s: no joint board: %s", plan.track.name, err)
            boards.append(
                BoardReport(plan.track.name, len(results[plan.track.name]), None, str(err))
            )
            continue
        if joint is None:
            continue
        folder = write_board_result(
            board_dir(config.output_dir, plan.track.name),
            BoardResult(
                track=plan.track.name,
                board=joint.board,
                details=joint.details,
                source="run",
                config_hash=config.config_hash(),
                started_at=started_at,
                finished_at=_now(),
            ),
        )
        boards.append(BoardReport(plan.track.name, len(joint.board.models), folder))
    return boards


# --- shared pieces -----------------------------------------------------------------------------


class _Judges:
    """Judge backends built once per run and shared by every model and track that names them
    (a local judge model is loaded once, not once per model)."""

    def __init__(self, cache: ResponseCache) -> None:
        self._cache = cache
        self._built: dict[str, Judge] = {}

    def get(self, config: ModelConfig) -> Judge:
        key = config.model_dump_json()
        if key not in self._built:
            self._built[key] = Judge(build_backend(config, device=local_device()), self._cache)
        return self._built[key]


class _CachedResponses:
    """A model's cached answer to a request, looked up by the model's name in the config."""

    def __init__(self, config: RunConfig, cache: ResponseCache) -> None:
        self._models = {m.name: m for m in config.models}
        self._cache = cache
        self._identities: dict[str, dict[str, Any]] = {}

    def identity(self, model: str) -> dict[str, Any]:
        if model not in self._models:
            raise KeyError(
                f"model {model!r} is not in the run config (have: {', '.join(self._models)})"
            )
        if model not in self._identities:  # building a backend loads no weights
            self._identities[model] = build_backend(self._models[model]).identity
        return self._identities[model]

    def get(self, model: str, request: Request) -> Response | None:
        return self._cache.get(cache_key(self.identity(model), request))


def _size_hint(request: Request) -> int:
    """A cheap stand-in for prompt length, so that batches hold requests of similar length."""
    text = sum(len(p.text) for t in request.turns for p in t.parts if hasattr(p, "text"))
    return text + 256 * len(request.images)


def _count(items: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
