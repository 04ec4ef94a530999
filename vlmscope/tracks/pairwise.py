"""Judged-against-a-baseline scoring, shared by every pairwise track (ProBench, VisionArena-Bench).

A pairwise track says where its prompts come from; this module does the rest: the baseline's
answer to the same request comes from the run's cache (the baseline is one of the run's models),
the judge sees both answers twice with positions swapped, and the verdicts become battles rated
with Bradley-Terry and a bootstrap exactly as the reference scorer named by `reference` does.
Unparseable verdicts are counted and excluded, as the references exclude them; never ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from vlmscope.judges.markdown import answer_style_counts
from vlmscope.judges.pairwise import judge_pair, load_pairwise_template
from vlmscope.messages import Response
from vlmscope.ratings.verdict_presets import VerdictSettings, score_verdicts
from vlmscope.ratings.verdict_records import AnswerStyle, VerdictRecord
from vlmscope.tracks.base import Sample, Scored, ScoringContext, TrackOptions


class PairwiseOptions(TrackOptions):
    baseline: str
    """Name of the run's model whose answers every other model is compared with."""
    template: str = "visionarena_bench_judge.txt"
    reference: Literal["arena-hard-v0.1", "arena-hard-v2", "probench"] = "arena-hard-v0.1"
    weight: int = 3
    first_game_only: bool = False
    style_control: bool = False
    bootstrap_rounds: int = 100
    seed: int = 0
    judge_max_new_tokens: int = 4096


class PairwiseScoring:
    """Mixin: `score` and `summarize` for a track whose `options` is a PairwiseOptions.

    The track's samples carry the evaluated model's name in `meta["model"]` (and optionally a
    `category`), since the ratings name both sides of every battle.
    """

    options: PairwiseOptions

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        baseline_name = self.options.baseline
        baseline = context.responses_of(baseline_name, sample.request)
        reason = _not_judgeable(response, baseline, context)
        if reason is not None:
            return Scored(sample.id, {}, outcome=reason, extra={"baseline": baseline_name})
        assert baseline is not None and context.judge is not None
        template = load_pairwise_template(self.options.template)
        games = await judge_pair(
            context.judge,
            template,
            question=sample.request,
            model_answer=response.text,
            baseline_answer=baseline.text,
            max_new_tokens=self.options.judge_max_new_tokens,
        )
        labels = [g.verdict.label for g in games]
        unparseable = [g for g in games if not g.verdict.parsed]
        return Scored(
            sample.id,
            scores={},
            parsed=" | ".join(label or "-" for label in labels),
            outcome="judge_unparseable" if unparseable else "ok",
            extra={
                "baseline": baseline_name,
                "template": f"{template.name} v{template.version}",
                "games": [g.to_json() for g in games],
                "model_style": _style(response),
                "baseline_style": _style(baseline),
                "category": sample.meta.get("category"),
            },
        )

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> dict[str, Any]:
        records = [
            _record(str(sample.meta["model"]), s)
            for sample, s in zip(samples, scored, strict=True)
            if "games" in s.extra
        ]
        settings = VerdictSettings(
            reference=self.options.reference,
            baseline=self.options.baseline,
            style_control=self.options.style_control,
            weight=self.options.weight,
            first_game_only=self.options.first_game_only,
            rounds=self.options.bootstrap_rounds,
            seed=self.options.seed,
            category=None,
        )
        outcomes: dict[str, int] = {}
        for s in scored:
            outcomes[s.outcome] = outcomes.get(s.outcome, 0) + 1
        if not records:
            return {"ratings": {}, "judged_prompts": 0, "outcomes": outcomes}
        result = score_verdicts(records, settings)
        model = result["models"].get(records[0].model, {})
        return {
            "win_rate": model.get("win_rate"),
            "rating": model.get("rating"),
            "lower": model.get("lower"),
            "upper": model.get("upper"),
            "judged_prompts": len(records),
            "unparseable_games": result["unparseable"],
            "outcomes": outcomes,
            "ratings": result["models"],
            "style_coefficients": result.get("style_coefficients"),
            "settings": result.get("settings"),
        }


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


def _record(model: str, scored: Scored) -> VerdictRecord:
    games: list[dict[str, Any]] = scored.extra["games"]
    by_position = {g["model_first"]: g["judgment"] for g in games}
    return VerdictRecord(
        uid=scored.sample_id,
        model=model,
        baseline=str(scored.extra["baseline"]),
        judgments=(by_position.get(False), by_position.get(True)),
        category=scored.extra.get("category"),
        model_style=AnswerStyle.from_metadata(scored.extra["model_style"]),
        baseline_style=AnswerStyle.from_metadata(scored.extra["baseline_style"]),
    )
