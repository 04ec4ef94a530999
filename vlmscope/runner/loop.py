"""The one path: samples -> requests -> cached responses -> scores -> result datasets.

For each model and track: every process computes the same sample list and cache keys, takes its
share of the requests not yet answered, and commits each chunk of answers to the shared cache
before sending the next. The main process then reads every answer back, scores (judging through
the cached judge client), and writes the result datasets. A killed run restarts where it was:
what was committed is reused, what was in flight is asked again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from vlmscope.config import ModelConfig, RunConfig, TrackConfig
from vlmscope.judges.client import Judge
from vlmscope.messages import Request, Response, cache_key
from vlmscope.models.base import Backend
from vlmscope.models.registry import build_backend, commit_every
from vlmscope.runner.cache import ResponseCache
from vlmscope.runner.distributed import ProcessGroup, local_device, process_group
from vlmscope.runner.results import TrackResult, write_result
from vlmscope.tracks.base import Sample, Scored, ScoringContext, Track
from vlmscope.tracks.registry import build_track


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
    summary: dict[str, Any] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    result_dir: Path | None = None
    seconds: float = 0.0


@dataclass
class RunReport:
    tracks: list[TrackReport] = field(default_factory=list)
    output_dir: Path | None = None


def run(config: RunConfig, *, group: ProcessGroup | None = None) -> RunReport:
    """Run every configured model on every configured track; results land in `output_dir`."""
    owns_group = group is None
    group = group or process_group()
    cache = ResponseCache(config.cache_file)
    report = RunReport(output_dir=Path(config.output_dir))
    tracks = [(tc, build_track(tc, limit=config.limit)) for tc in config.tracks]
    judges = _Judges(cache)
    try:
        for model_config in config.models:
            backend = build_backend(model_config, device=local_device())
            for track_config, track in tracks:
                report.tracks.append(
                    _run_one(
                        config, model_config, backend, track_config, track, cache, group, judges
                    )
                )
            del backend
    finally:
        cache.close()
        if owns_group:
            group.close()
    return report


def _run_one(
    config: RunConfig,
    model_config: ModelConfig,
    backend: Backend,
    track_config: TrackConfig,
    track: Track,
    cache: ResponseCache,
    group: ProcessGroup,
    judges: _Judges,
) -> TrackReport:
    started = time.monotonic()
    started_at = _now()
    samples = track.samples(model_config)
    keys = [cache_key(backend.identity, s.request) for s in samples]
    done = {k for k, r in cache.get_many(keys).items() if r.ok}
    pending = [i for i, k in enumerate(keys) if k not in done]
    pending.sort(key=lambda i: _size_hint(samples[i]))
    report = TrackReport(model=model_config.name, track=track.name, total=len(samples))
    report.cached = len(samples) - len(pending)
    # Every process must split the same pending list: none may commit an answer before all
    # have read the cache, or a slower process would skip work a faster one never took.
    group.barrier()

    mine = group.share(pending)
    handled = _generate(
        mine, samples, keys, backend, cache, commit_every(model_config), group, report
    )
    counts = group.gather([(group.rank, handled)])
    report.by_rank = {rank: n for rank, n in counts}
    report.generated = sum(report.by_rank.values())
    group.barrier()
    if not group.is_main:
        return report

    stored = cache.get_many(keys)
    missing = [samples[i].id for i, k in enumerate(keys) if k not in stored]
    if missing:
        raise RuntimeError(f"{len(missing)} responses missing after generation: {missing[:5]}")
    responses = [stored[k] for k in keys]
    report.failed = sum(not r.ok for r in responses)
    context = ScoringContext(
        judge=judges.get(track_config.judge) if track_config.judge is not None else None,
        responses_of=_CachedResponses(config, cache).get,
    )
    scored = _score(track, samples, responses, context)
    summary = track.summarize(samples, scored)
    result = TrackResult(
        model=model_config.name,
        track=track.name,
        samples=samples,
        responses=responses,
        request_hashes=[s.request.content_hash() for s in samples],
        scored=scored,
        summary=summary,
        config_hash=config.config_hash(),
        started_at=started_at,
        finished_at=_now(),
        run_counts={
            "cached": report.cached,
            "generated": report.generated,
            "failed": report.failed,
            "by_rank": {str(k): v for k, v in report.by_rank.items()},
        },
    )
    report.result_dir = write_result(config.output_dir, result)
    track.write_extras(report.result_dir, samples, scored)
    report.summary = summary
    report.outcomes = dict(sorted(_count(s.outcome for s in scored).items()))
    report.seconds = time.monotonic() - started
    return report


def _generate(
    mine: list[int],
    samples: Sequence[Sample],
    keys: Sequence[str],
    backend: Backend,
    cache: ResponseCache,
    chunk_size: int,
    group: ProcessGroup,
    report: TrackReport,
) -> int:
    """Answer this process's share, committing answers as they arrive.

    Backends hand finished answers to `on_done` in request order (a local model after each
    batch, an API as soon as the next ones in order are in), and each hand-over is committed
    before the backend goes on; what a backend never handed over is committed when it returns.
    """
    bar = tqdm(
        total=report.total,
        initial=report.cached,
        desc=f"{report.model} / {report.track}",
        unit="req",
        disable=not group.is_main,
        dynamic_ncols=True,
    )
    failed = 0
    try:
        for start in range(0, len(mine), chunk_size):
            chunk = mine[start : start + chunk_size]
            committed = 0

            def commit(responses: Sequence[Response], chunk: list[int] = chunk) -> None:
                nonlocal committed, failed
                indices = chunk[committed : committed + len(responses)]
                cache.put_many(
                    {keys[i]: r for i, r in zip(indices, responses, strict=True)},
                    backend=backend.name,
                )
                committed += len(responses)
                failed += sum(not r.ok for r in responses)
                bar.update(len(responses) * group.world_size)
                bar.set_postfix(cached=report.cached, failed=failed, refresh=False)

            responses = backend.generate([samples[i].request for i in chunk], on_done=commit)
            if committed < len(chunk):
                commit(responses[committed:])
    finally:
        bar.close()
    return len(mine)


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
    """Another model's cached answer to a request, looked up by the model's name in the config."""

    def __init__(self, config: RunConfig, cache: ResponseCache) -> None:
        self._models = {m.name: m for m in config.models}
        self._cache = cache
        self._identities: dict[str, dict[str, Any]] = {}

    def get(self, model: str, request: Request) -> Response | None:
        if model not in self._models:
            raise KeyError(
                f"model {model!r} is not in the run config (have: {', '.join(self._models)})"
            )
        if model not in self._identities:  # building a backend loads no weights
            self._identities[model] = build_backend(self._models[model]).identity
        return self._cache.get(cache_key(self._identities[model], request))


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
                await asyncio.gather(*(one(s, r) for s, r in zip(samples, responses, strict=False)))
            )
        finally:
            bar.close()

    return asyncio.run(score_all())


def _size_hint(sample: Sample) -> int:
    """A cheap stand-in for prompt length, so that batches hold requests of similar length."""
    text = sum(len(p.text) for t in sample.request.turns for p in t.parts if hasattr(p, "text"))
    return text + 256 * len(sample.request.images)


def _count(items: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
