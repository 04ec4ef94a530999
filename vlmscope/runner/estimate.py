"""The dry run: what a run would ask, per track, phase and model, and what it would cost.

Nothing is sent and nothing is written. The run's own code decides what would be asked, so the
count is the run's, not a formula's:

- generate: every turn of every sample of every model, looked up in the cache under the keys the
  run would use; a turn not there is to be asked (a later turn of a conversation is built on a
  stand-in answer of the expected length, so it is to be asked too);
- judge: each track scores every model's answers (cached ones, else stand-ins of the expected
  length; the oracle's are its references) with a dry judge, which looks each judge request up
  under the key the run's judge would use and, where nothing is cached, notes the request and
  answers with a stand-in verdict the track reads (`VerdictCodec.neutral`). So MEGA-Bench's
  judged fields, ProBench's and VisionArena-Bench's two games per prompt and SimpleVQA's grades
  are counted by the tracks themselves. A judge request asked earlier in the run (the
  same prompt for two models, the two games of an answer identical to the baseline's) is
  counted as cached, as the run's judge finds it cached;
- the bound: a reply without a verdict is asked again (ProBench up to 3 times a game,
  VisionArena-Bench one follow-up, SimpleVQA once more), which a dry run cannot foresee. So
  each track scores every answer a second time with a dry judge whose stand-in holds no verdict
  (`vlmscope.runner.estimate_bound`): the tracks' own re-ask rules then ask every re-ask they
  can, and each line's `bound` counts them; its `max_retries` is the backend's for transient
  failures (every request sent 1 + max_retries times at worst).

Input tokens of what is to be asked are counted from the built prompts, output tokens expected
(`vlmscope.runner.token_estimate`), and both priced by the run's pricing file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vlmscope.config import JudgePanelConfig, ModelConfig, OracleModelConfig, RunConfig
from vlmscope.judges.call_log import GENERATE, JUDGE
from vlmscope.judges.client import Judge, judgment_key
from vlmscope.judges.panel import PanelJudge, VerdictCodec
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Request, Response, Usage
from vlmscope.models.registry import build_backend
from vlmscope.runner.answer_keys import AnswerKeys, oracle_references
from vlmscope.runner.cache_reader import CacheReader
from vlmscope.runner.cached_reasoning import split_cached
from vlmscope.runner.estimate_bound import UNREADABLE, attach_bounds
from vlmscope.runner.plan import PlannedTrack
from vlmscope.runner.pricing import Pricer, run_models
from vlmscope.runner.token_estimate import EstimateSettings, ModelEstimate, estimate_for
from vlmscope.tracks.base import Sample, ScoringContext, Track
from vlmscope.tracks.conversation import walk_conversations


@dataclass
class PhaseEstimate:
    """One (track, phase, model) line of the dry run: every request the results would stand
    on, those already cached, and the tokens and cost of the rest (`to_ask`)."""

    track: str
    phase: str
    model: str
    requests: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    counted: str = ""
    output: str = ""
    bound: PhaseEstimate | None = None
    """The same line when every judge reply lacks a verdict (every configured re-ask asked)."""
    max_retries: int = 0
    """The backend's retries of a request that failed transiently (0: it retries none)."""

    @property
    def to_ask(self) -> int:
        return self.requests - self.cached

    def note(self, estimate: ModelEstimate, request: Request, cached: bool) -> None:
        self.requests += 1
        if cached:
            self.cached += 1
            return
        self.input_tokens += estimate.prompt_tokens(request)
        self.output_tokens += estimate.output_tokens(request)

    def to_json(self) -> dict[str, Any]:
        bound = None if self.bound is None else self.bound.to_json()
        return {**self.__dict__, "to_ask": self.to_ask, "bound": bound}


@dataclass
class DryRun:
    """Every line of a dry run, in run order."""

    lines: list[PhaseEstimate] = field(default_factory=list)
    settings: EstimateSettings = EstimateSettings()

    def line(self, track: str, phase: str, estimate: ModelEstimate) -> PhaseEstimate:
        for found in self.lines:
            if (found.track, found.phase, found.model) == (track, phase, estimate.model):
                return found
        made = PhaseEstimate(track, phase, estimate.model, counted=estimate.method)
        made.output = estimate.output_source
        self.lines.append(made)
        return made


def filler(tokens: int, chars_per_token: float) -> str:
    """A stand-in answer of about `tokens` tokens (by the approximation's count)."""
    return " ".join(["x" * max(1, round(chars_per_token) - 1)] * tokens)


class _Answers:
    """Each model's answer to a request as the dry run sees it: cached, else a stand-in."""

    def __init__(
        self,
        config: RunConfig,
        planned: Sequence[PlannedTrack],
        cache: CacheReader,
        estimates: dict[str, ModelEstimate],
        settings: EstimateSettings,
    ) -> None:
        self.models = {m.name: m for m in config.models}
        self.cache = cache
        self.estimates = estimates
        self.settings = settings
        self.planned = planned
        self._keys: dict[str, AnswerKeys] = {}

    def keys(self, model: str) -> AnswerKeys:
        if model not in self._keys:
            config = self.models[model]
            samples = [p.track.samples(config) for p in self.planned]
            references = oracle_references(config, samples)
            self._keys[model] = AnswerKeys(build_backend(config).identity, references)
        return self._keys[model]

    def lookup(self, model: str, requests: list[Request]) -> list[tuple[Response, bool]]:
        keys_of = self.keys(model)
        keys = [keys_of(r) for r in requests]
        found = self.cache.get_many(keys)
        config = self.models[model]
        return [
            (split_cached(hit, config), True)
            if (hit := found.get(k)) is not None and hit.ok
            else (self.stand_in(model, r), False)
            for k, r in zip(keys, requests, strict=True)
        ]

    def stand_in(self, model: str, request: Request) -> Response:
        references = self.keys(model).references
        if isinstance(self.models[model], OracleModelConfig) and references is not None:
            return Response(text=references.get(request.content_hash(), ""))
        tokens = self.estimates[model].output_tokens(request)
        text = filler(tokens, self.settings.chars_per_token)
        return Response(text=text, usage=Usage(completion_tokens=tokens))

    def responses_of(self, model: str, request: Request) -> Response | None:
        return self.lookup(model, [request])[0][0]


class DryJudge(Judge):
    """Looks each judgment up as the run's judge would, notes what it would ask, and answers
    that with a stand-in verdict."""

    def __init__(
        self,
        config: ModelConfig,
        cache: CacheReader,
        line: PhaseEstimate,
        estimate: ModelEstimate,
        stand_in: str,
        asked: set[str],
    ) -> None:
        self.backend = build_backend(config)
        self.reader = cache
        self.asked = asked
        self.line = line
        self.estimate = estimate
        self.stand_in = stand_in
        self.gate = None
        self.phase = JUDGE

    async def ask(self, request: Request, *, attempt: int = 0, repeat: int = 0) -> Response:
        key = judgment_key(self.backend.identity, request, attempt=attempt, repeat=repeat)
        found = self.reader.get(key)
        cached = (found is not None and found.ok) or key in self.asked
        self.line.note(self.estimate, request, cached)
        self.asked.add(key)
        if found is not None and found.ok:
            return found
        return Response(text=self.stand_in)

    def describe(self, settings: JudgeSettings) -> dict[str, Any]:
        return {"judge": self.name}


def dry_run(
    config: RunConfig,
    planned: Sequence[PlannedTrack],
    pricer: Pricer,
    settings: EstimateSettings,
) -> DryRun:
    """Every line of the run's estimate (see the module docstring)."""
    cache = CacheReader(config.cache_file)
    try:
        estimates = {m.name: estimate_for(m, settings, cache) for m in run_models(config)}
        answers = _Answers(config, planned, cache, estimates, settings)
        result = DryRun(settings=settings)
        worst = DryRun(settings=settings)
        judged: set[str] = set()
        judged_worst: set[str] = set()
        for model in config.models:
            for plan in planned:
                samples = plan.track.samples(model)
                line = result.line(plan.track.name, GENERATE, estimates[model.name])
                responses = _generate(model.name, samples, answers, line)
                for into, asked, stand_in in (
                    (result, judged, None),
                    (worst, judged_worst, UNREADABLE),
                ):
                    judge = _dry_judge(plan, cache, estimates, into, asked, stand_in)
                    if judge is not None:
                        context = ScoringContext(model.name, judge, answers.responses_of)
                        asyncio.run(_score(plan.track, samples, responses, context))
        for line in result.lines:
            line.cost_usd = pricer.cost(line.model, line.input_tokens, line.output_tokens)
        attach_bounds(result.lines, worst.lines, pricer, config)
        order = {p.track.name: i for i, p in enumerate(planned)}
        result.lines.sort(key=lambda x: (order[x.track], x.phase != GENERATE))
        return result
    finally:
        cache.close()


def _generate(
    model: str, samples: Sequence[Sample], answers: _Answers, line: PhaseEstimate
) -> list[Response]:
    """Note every turn's request; the answer that stands for each sample (cached or not)."""
    estimate = answers.estimates[model]

    def lookup(requests: list[Request]) -> list[Response | None]:
        found = answers.lookup(model, requests)
        for request, (_, cached) in zip(requests, found, strict=True):
            line.note(estimate, request, cached)
        return [response for response, _ in found]

    return [c.final for c in walk_conversations(samples, lookup) if c.final is not None]


def _dry_judge(
    plan: PlannedTrack,
    cache: CacheReader,
    estimates: dict[str, ModelEstimate],
    result: DryRun,
    asked: set[str],
    stand_in: str | None = None,
) -> Judge | None:
    """The dry judge of `plan`'s track; its replies are `stand_in`, or (None) a verdict the
    track reads."""
    judge = plan.config.judge
    if judge is None:
        return None
    codec: VerdictCodec | None = getattr(plan.track, "panel_verdicts", None)
    if stand_in is None:
        stand_in = codec.write(codec.neutral) if codec is not None else ""

    def one(config: ModelConfig) -> DryJudge:
        line = result.line(plan.track.name, JUDGE, estimates[config.name])
        return DryJudge(config, cache, line, estimates[config.name], stand_in, asked)

    if isinstance(judge, JudgePanelConfig):
        assert codec is not None  # planning refuses a panel for a track without verdicts
        return PanelJudge([one(j) for j in judge.judges], judge, codec)
    return one(judge)


async def _score(
    track: Track, samples: Sequence[Sample], responses: Sequence[Response], context: ScoringContext
) -> None:
    await asyncio.gather(
        *(track.score(s, r, context) for s, r in zip(samples, responses, strict=True))
    )
