"""Judged-against-a-baseline scoring, shared by every pairwise track (ProBench, VisionArena-Bench).

A pairwise track says where its prompts come from; this module does the rest:

- score: the baseline's answer to the same request comes from the run's cache (the baseline is
  one of the run's models, and scoring starts only after every model answered), the judge sees
  both answers twice with positions swapped; the baseline's own samples are not judged;
- summarize: per model, how many prompts were judged and how many games could not be read;
- aggregate: the verdicts of every model become battles rated in ONE fit (so ratings are
  comparable across models), with Bradley-Terry and a bootstrap exactly as the reference scorer
  named by `reference` does.

Unparseable verdicts are counted and excluded, as the references exclude them; never ties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Literal

from vlmscope.judges.markdown import answer_style_counts
from vlmscope.judges.pairwise import (
    PAIRWISE_JUDGE,
    PairwiseTemplate,
    judge_pair,
    load_pairwise_template,
)
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Response
from vlmscope.ratings.verdict_presets import VerdictSettings, verdict_board, verdict_categories
from vlmscope.ratings.verdict_records import AnswerStyle, VerdictRecord, verdict_record_to_dict
from vlmscope.tracks.base import (
    ModelResult,
    Sample,
    Scored,
    ScoringContext,
    SummaryReport,
    TrackBase,
    TrackBoard,
    TrackOptions,
)

BASELINE_ROLE = "baseline"


class PairwiseOptions(TrackOptions):
    baseline: str
    """Name of the run's model whose answers every other model is compared with."""
    template: str = "visionarena_bench_judge.txt"
    reference: Literal["arena-hard-v0.1", "arena-hard-v2", "probench"] = "arena-hard-v0.1"
    weight: int = 3
    first_game_only: bool = False
    style_control: bool = False
    """Also fit the verdicts with style control (length and markdown), shown as a toggle."""
    bootstrap_rounds: int = 100
    seed: int = 42


@dataclass(frozen=True)
class PairwiseEvidence:
    """What one judged prompt leaves in `Scored.extra`, and what the aggregate phase reads."""

    baseline: str
    template: str
    games: tuple[Mapping[str, Any], ...]
    model_style: Mapping[str, Any]
    baseline_style: Mapping[str, Any]
    category: str | None

    def to_extra(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "template": self.template,
            "games": [dict(g) for g in self.games],
            "model_style": dict(self.model_style),
            "baseline_style": dict(self.baseline_style),
            "category": self.category,
        }

    @classmethod
    def from_extra(cls, extra: Mapping[str, Any]) -> PairwiseEvidence | None:
        """The evidence of a judged prompt; None for a prompt that was not judged."""
        if "games" not in extra:
            return None
        return cls(
            baseline=str(extra["baseline"]),
            template=str(extra["template"]),
            games=tuple(extra["games"]),
            model_style=extra["model_style"],
            baseline_style=extra["baseline_style"],
            category=extra.get("category"),
        )

    def record(self, uid: str, model: str) -> VerdictRecord:
        by_position = {g["model_first"]: g["judgment"] for g in self.games}
        return VerdictRecord(
            uid=uid,
            model=model,
            baseline=self.baseline,
            judgments=(by_position.get(False), by_position.get(True)),
            category=self.category,
            model_style=AnswerStyle.from_metadata(self.model_style),
            baseline_style=AnswerStyle.from_metadata(self.baseline_style),
        )


class PairwiseScoring(TrackBase):
    """Base for a track whose `options` is a PairwiseOptions: `score`, `summarize`, `aggregate`.

    A track's samples may carry a `category` in `meta` (a per-category board is fitted for it).
    """

    options: PairwiseOptions
    judge_settings: ClassVar[JudgeSettings] = PAIRWISE_JUDGE

    def required_models(self) -> Mapping[str, str]:
        return {"baseline": self.options.baseline}

    @cached_property
    def template(self) -> PairwiseTemplate:
        """The judge prompt, read once per track rather than once per judged sample."""
        return load_pairwise_template(self.options.template)

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        baseline_name = self.options.baseline
        if context.model == baseline_name:
            return Scored(sample.id, {}, outcome="ok", extra={"role": BASELINE_ROLE})
        baseline = context.responses_of(baseline_name, sample.request)
        reason = _not_judgeable(response, baseline, context)
        if reason is not None:
            return Scored(sample.id, {}, outcome=reason, extra={"baseline": baseline_name})
        assert baseline is not None and context.judge is not None
        template = self.template
        games = await judge_pair(
            context.judge,
            template,
            question=sample.request,
            model_answer=response.text,
            baseline_answer=baseline.text,
            settings=self.judge_settings,
        )
        evidence = PairwiseEvidence(
            baseline=baseline_name,
            template=f"{template.name} v{template.version}",
            games=tuple(g.to_json() for g in games),
            model_style=_style(response),
            baseline_style=_style(baseline),
            category=sample.meta.get("category"),
        )
        return Scored(
            sample.id,
            scores={},
            parsed=" | ".join(g.verdict.label or "-" for g in games),
            outcome="judge_unparseable" if any(not g.verdict.parsed for g in games) else "ok",
            extra=evidence.to_extra(),
        )

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> SummaryReport:
        outcomes: dict[str, int] = {}
        for s in scored:
            outcomes[s.outcome] = outcomes.get(s.outcome, 0) + 1
        if any(s.extra.get("role") == BASELINE_ROLE for s in scored):
            return SummaryReport({"role": BASELINE_ROLE, "judged_prompts": 0, "outcomes": outcomes})
        judged = [e for s in scored if (e := PairwiseEvidence.from_extra(s.extra)) is not None]
        unparseable_games = sum(g["outcome"] != "parsed" for e in judged for g in e.games)
        return SummaryReport(
            {
                "judged_prompts": len(judged),
                "unparseable_games": unparseable_games,
                "baseline": self.options.baseline,
                "outcomes": outcomes,
            }
        )

    def aggregate(self, results: Mapping[str, ModelResult]) -> TrackBoard | None:
        """One board over every judged model of the run.

        Records go to the fit in model-name order (then sample order), not config order: the
        reference bootstraps resample rows by position, so the board must not depend on where
        a model is listed.
        """
        records = [
            evidence.record(s.sample_id, model)
            for model, result in sorted(results.items())
            for s in result.scored
            if (evidence := PairwiseEvidence.from_extra(s.extra)) is not None
        ]
        if not records:
            return None
        categories = verdict_categories(records)
        board = verdict_board(
            records,
            self.verdict_settings(),
            categories=categories if len(categories) > 1 else (),
            style_companion=self.options.style_control,
        )
        return TrackBoard(board, [verdict_record_to_dict(r) for r in records])

    def verdict_settings(self) -> VerdictSettings:
        """The board's own fit: plain (a `style_control: true` track also gets the style-
        controlled companion), except ProBench's reference, which is always style-controlled."""
        return VerdictSettings(
            reference=self.options.reference,
            baseline=self.options.baseline,
            style_control=self.options.reference == "probench",
            weight=self.options.weight,
            first_game_only=self.options.first_game_only,
            rounds=self.options.bootstrap_rounds,
            seed=self.options.seed,
            category=None,
        )


def _not_judgeable(
    response: Response, baseline: Response | None, context: ScoringContext
) -> str | None:
    if not response.ok:
        return response.status.value
    if baseline is None or not baseline.ok:
        return "baseline_missing"
    if context.judge is None:
        return "judge_missing"
    return None


def _style(response: Response) -> dict[str, Any]:
    """Style metadata as the references record it; tokens from the backend's own count when it
    reports one (the references count with tiktoken, which needs a download), else words."""
    counts = answer_style_counts(response.text)
    tokens = response.usage.completion_tokens or len(response.text.split())
    return {"token_len": tokens, **counts}
