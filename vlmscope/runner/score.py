"""Phases 2 and 3 of a run, on the main process: score each (model, track), then fit each board.

Scoring starts once every model has answered every track. Each (model, track) is scored from
the cache (judging through the cached judge client), summarized into a typed report and
written as a result dataset; a pairwise track reads the baseline's answers here, so the order
of models in the config never matters. Aggregation then gives each track with a joint view one
rating board over every model of the run, written as its own dataset.

Both run on the main process only, after generation: they take the models' answers from the
cache, write result datasets, and rerun whole after a killed run (judgments come back from the
judge's cache). That is why they live together, apart from generation
(`vlmscope.runner.generate`), which every process runs and which talks to the models.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from vlmscope.cache import ResponseCache
from vlmscope.config import JudgePanelConfig, ModelConfig, OracleModelConfig, RunConfig
from vlmscope.judges.call_log import Call, collecting
from vlmscope.judges.client import CallGate, Judge
from vlmscope.judges.panel import PanelJudge
from vlmscope.messages import Request, Response
from vlmscope.models.registry import build_backend
from vlmscope.ratings.fits.fit_checks import FitError
from vlmscope.runner.answer_keys import AnswerKeys, oracle_references
from vlmscope.runner.cached_reasoning import resplit
from vlmscope.runner.call_records import model_calls
from vlmscope.runner.distributed import local_device
from vlmscope.runner.failure_causes import failure_causes
from vlmscope.runner.generate import TrackReport, utc_now
from vlmscope.runner.judge_facts import judge_facts, with_consistency
from vlmscope.runner.ledger import LEDGER, ledger_summary, split_ledger
from vlmscope.runner.plan import PlannedTrack
from vlmscope.runner.pricing import Pricer
from vlmscope.runner.results import (
    BoardResult,
    TrackResult,
    board_dir,
    write_board_result,
    write_result,
)
from vlmscope.runner.run_facts import data_facts, generation_facts, reasoning_facts
from vlmscope.stand_ins import run_stand_ins
from vlmscope.tracks.base import ModelResult, Sample, Scored, ScoringContext, Track
from vlmscope.tracks.conversation import Conversation, walk_conversations

log = logging.getLogger(__name__)


# --- phase 2: score ----------------------------------------------------------------------------


def score_all(
    config: RunConfig,
    planned: Sequence[PlannedTrack],
    reports: Sequence[TrackReport],
    cache: ResponseCache,
    pricer: Pricer,
    gate: CallGate | None = None,
) -> dict[str, dict[str, ModelResult]]:
    """Score and write every (model, track); returns each track's results by model. `pricer`
    prices the ledger; `gate` (a budget) sees every judge call before it is sent."""
    judges = _Judges(cache, gate)
    answers = _CachedResponses(config, cache, planned)
    by_pair = {(r.model, r.track): r for r in reports}
    results: dict[str, dict[str, ModelResult]] = {p.track.name: {} for p in planned}
    for model_config in config.models:
        for plan in planned:
            report = by_pair[(model_config.name, plan.track.name)]
            judge = judges.get(plan.config.judge, plan.track)
            result = _score_one(config, model_config, plan, judge, answers, cache, report, pricer)
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
    pricer: Pricer,
) -> ModelResult:
    """Score one (model, track) from the cache, write its result dataset and fill `report`
    (failures, ledger, summary, outcomes, time) for the end-of-run table."""
    started = time.monotonic()
    track = plan.track
    samples = track.samples(model_config)
    keys_of = answers.keys(model_config.name)
    conversations = _finished_conversations(samples, model_config, keys_of, cache)
    responses = [c.final for c in conversations if c.final is not None]
    report.failed = sum(not r.ok for r in responses)
    report.failure_causes = failure_causes(responses)
    context = ScoringContext(model=model_config.name, judge=judge, responses_of=answers.get)
    scored, judged = _score(track, samples, responses, context)
    generated = [
        model_calls(model_config.name, s, c.responses, keys_of, report.asked_keys)
        for s, c in zip(samples, conversations, strict=True)
    ]
    track_report = track.summarize(samples, scored)
    summary = track_report.summary()
    summary |= judge_facts(scored, [c for calls in judged for c in calls])
    report.ledger = ledger_summary(
        model_config.name,
        [c for calls in generated for c in calls],
        [c for calls in judged for c in calls],
        pricer,
    )
    summary[LEDGER], this_run = split_ledger(report.ledger)
    summary |= _run_facts(plan, judge, samples, responses, keys_of, report)
    result = TrackResult(
        model=model_config.name,
        track=track.name,
        samples=samples,
        responses=responses,
        request_hashes=[s.request.content_hash() for s in samples],
        scored=scored,
        summary=summary,
        calls=[[*g, *j] for g, j in zip(generated, judged, strict=True)],
        config_hash=config.config_hash(),
        started_at=report.started_at,
        finished_at=utc_now(),
        limit=config.limit,
        stand_ins=run_stand_ins([model_config], plan.config.judge, track.stand_ins()),
        note=config.note or "",
        turns=[c.responses for c in conversations],
        run_counts={
            "cached": report.cached,
            "generated": report.generated,
            "failed": report.failed,
            "by_rank": {str(k): v for k, v in report.by_rank.items()},
            LEDGER: this_run,
        },
    )
    report.result_dir = write_result(config.output_dir, result, track_report.write_files)
    report.summary = summary
    report.outcomes = dict(sorted(_count(s.outcome for s in scored).items()))
    report.seconds += time.monotonic() - started
    return ModelResult(model_config.name, samples, responses, scored, track_report)


def _finished_conversations(
    samples: Sequence[Sample], model_config: ModelConfig, keys_of: AnswerKeys, cache: ResponseCache
) -> list[Conversation]:
    """Each sample's conversation, replayed from the cache; every turn must have its answer
    (generation ran first), so a missing one is an error naming the samples."""

    def stored(requests: list[Request]) -> list[Response | None]:
        keys = [keys_of(r) for r in requests]
        found = cache.get_many(keys)
        return [resplit(found.get(k), model_config) for k in keys]

    conversations = walk_conversations(samples, stored)
    missing = [s.id for s, c in zip(samples, conversations, strict=True) if c.next_request]
    if missing:
        raise RuntimeError(f"{len(missing)} responses missing after generation: {missing[:5]}")
    return conversations


def _run_facts(
    plan: PlannedTrack,
    judge: Judge | None,
    samples: Sequence[Sample],
    responses: Sequence[Response],
    keys_of: AnswerKeys,
    report: TrackReport,
) -> dict[str, Any]:
    """The summary's facts about how the scores were made rather than what they are: the
    generation (reasoning, batching fallbacks), the judge, data the plan lacked, the data's
    origin. A key is present only where it has something to say, as readers expect."""
    generation = generation_facts(samples, keys_of.identity)
    if (reasoning := reasoning_facts(responses)) is not None:
        generation["reasoning"] = reasoning
    if report.batching:  # batches that failed, and what the backend did instead (not scores)
        generation["batching_fallback"] = report.batching
    facts: dict[str, Any] = {"generation": generation}
    if judge is not None:
        facts["judge"] = judge.describe(plan.track.judge_settings)
    if plan.missing:
        facts["degraded"] = [d.to_json() for d in plan.missing]
    facts["data"] = data_facts(plan.origin)
    return facts


def _score(
    track: Track, samples: Sequence[Sample], responses: Sequence[Response], context: ScoringContext
) -> tuple[list[Scored], list[list[Call]]]:
    """Every sample scored, with the judge calls each one made.

    Samples are scored concurrently; when one fails (a budget refusing its next judge call),
    the others still finish what they have in flight, so no judgment that was paid for is
    lost, and then the first failure is raised."""

    async def score_all() -> list[tuple[Scored, list[Call]] | BaseException]:
        bar = tqdm(
            total=len(samples), desc=f"scoring {track.name}", unit="sample", dynamic_ncols=True
        )

        async def one(sample: Sample, response: Response) -> tuple[Scored, list[Call]]:
            with collecting() as calls:
                scored = await track.score(sample, response, context)
            bar.update(1)
            return scored, calls

        try:
            return list(
                await asyncio.gather(
                    *(one(s, r) for s, r in zip(samples, responses, strict=True)),
                    return_exceptions=True,
                )
            )
        finally:
            bar.close()

    outcomes = asyncio.run(score_all())
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    done = [o for o in outcomes if not isinstance(o, BaseException)]
    return [scored for scored, _ in done], [calls for _, calls in done]


class _Judges:
    """Judge backends built once per run and shared by every model and track that names them
    (a local judge model is loaded once, not once per model)."""

    def __init__(self, cache: ResponseCache, gate: CallGate | None = None) -> None:
        self._cache = cache
        self._gate = gate
        self._built: dict[str, Judge] = {}

    def get(self, config: ModelConfig | JudgePanelConfig | None, track: Track) -> Judge | None:
        """The track's judge: None, one judge, or a panel reading the track's verdicts."""
        if isinstance(config, JudgePanelConfig):
            codec = track.panel_verdicts
            assert codec is not None  # planning refuses a panel for a track without verdicts
            return PanelJudge([self._one(j) for j in config.judges], config, codec)
        return None if config is None else self._one(config)

    def _one(self, config: ModelConfig) -> Judge:
        key = config.model_dump_json()
        if key not in self._built:
            backend = build_backend(config, device=local_device())
            self._built[key] = Judge(backend, self._cache, gate=self._gate)
        return self._built[key]


class _CachedResponses:
    """A model's cached answer to a request, looked up by the model's name in the config."""

    def __init__(
        self, config: RunConfig, cache: ResponseCache, planned: Sequence[PlannedTrack]
    ) -> None:
        self._models = {m.name: m for m in config.models}
        self._cache = cache
        self._planned = planned
        self._keys: dict[str, AnswerKeys] = {}

    def keys(self, model: str) -> AnswerKeys:
        """The model's answer keys, as the generate phase made them."""
        if model not in self._models:
            raise KeyError(
                f"model {model!r} is not in the run config (have: {', '.join(self._models)})"
            )
        if model not in self._keys:  # building a backend loads no weights
            config = self._models[model]
            oracle = isinstance(config, OracleModelConfig)  # only its keys need the samples
            samples = [p.track.samples(config) for p in self._planned] if oracle else []
            references = oracle_references(config, samples)
            self._keys[model] = AnswerKeys(build_backend(config).identity, references)
        return self._keys[model]

    def get(self, model: str, request: Request) -> Response | None:
        return resplit(self._cache.get(self.keys(model)(request)), self._models[model])


def _count(items: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


# --- phase 3: aggregate ------------------------------------------------------------------------


@dataclass
class BoardReport:
    """A track's joint board over every model of the run, or why it could not be fitted."""

    track: str
    models: int
    result_dir: Path | None
    error: str | None = None
    ratings: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    """Each model's (rating, lower, upper) on the board (the 95% interval), for the run table."""


def aggregate_all(
    config: RunConfig,
    planned: Sequence[PlannedTrack],
    results: dict[str, dict[str, ModelResult]],
) -> list[BoardReport]:
    boards = []
    for plan in planned:
        started_at = utc_now()
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
            board_dir(config.output_dir, plan.track.name, config.limit),
            BoardResult(
                track=plan.track.name,
                board=with_consistency(joint.board, results[plan.track.name]),
                details=joint.details,
                source="run",
                config_hash=config.config_hash(),
                started_at=started_at,
                finished_at=utc_now(),
                limit=config.limit,
                stand_ins=run_stand_ins(config.models, plan.config.judge, plan.track.stand_ins()),
                note=config.note or "",
            ),
        )
        ratings = {m: (r.rating, r.lower, r.upper) for m, r in joint.board.models.items()}
        boards.append(BoardReport(plan.track.name, len(joint.board.models), folder, None, ratings))
    return boards
