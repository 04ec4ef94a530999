"""Judged-against-a-baseline scoring for single-turn pairwise tracks (VisionArena-Bench).

A pairwise track subclasses `PairwiseScoring` and says where its prompts come from; this module
does the rest:

- score: the baseline's answer to the same request comes from the run's cache (the baseline is
  one of the run's models, and scoring starts only after every model answered), or, for a
  track given `file_anchor`, from a file (the baseline is then no model of the run; a prompt it
  has no answer for is `anchor_missing`); the judge sees both answers twice with positions
  swapped, and its requests hold only the texts, so a file answer and a model's answer with the
  same text share every judge cache key; the baseline's own samples are not judged; a game
  is asked, and its label read, as the `reference` scorer does (arena-hard-auto v2: once, its
  last label; otherwise a nudge after a reply without a label, one label or none);
- summarize: per model, how many prompts were judged, how many games could not be read, and the
  mean answer length over the judged prompts (`avg_tokens`);
- aggregate: the verdicts of every model become battles rated in ONE fit (so ratings are
  comparable across models), with Bradley-Terry and a bootstrap exactly as the reference scorer
  named by `reference` does; every board of the fit (categories and style twins included) holds
  each model's and the baseline's average answer length under `settings.extra["avg_tokens"]`.

Unparseable verdicts are counted and excluded, as the references exclude them; never ties.

ProBench is not scored here: its samples are multi-turn conversations, its judge gets ProBench's
own message format with the image, and it reports a table per track and breakdown, so every
method of `PairwiseScoring` would be overridden. It has its own track
(`vlmscope.tracks.probench.track`) and shares only `PairwiseEvidence`, the record a judged prompt
leaves, so both tracks' verdicts become the same `VerdictRecord`s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from vlmscope.judges.markdown import answer_style_counts
from vlmscope.judges.pairwise import (
    ARENA_HARD_V01_ATTEMPTS,
    ARENA_HARD_V2_ATTEMPTS,
    ARENA_HARD_V2_JUDGE,
    PAIRWISE_JUDGE,
    JudgeAttempts,
    PairwiseTemplate,
    judge_pair,
    load_pairwise_template,
)
from vlmscope.judges.panel_codecs import PairwiseLabels
from vlmscope.judges.settings import JudgeSettings
from vlmscope.judges.verdicts import LAST_MATCH_RULES, STRICT_RULES, VerdictRules
from vlmscope.messages import Response
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.boards.verdict_presets import (
    VerdictSettings,
    verdict_board,
    verdict_categories,
)
from vlmscope.ratings.inputs.verdict_records import (
    AnswerStyle,
    VerdictRecord,
    verdict_record_to_dict,
)
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
AVG_TOKENS = "avg_tokens"
"""Key of a board's `settings.extra`: `{model: mean answer tokens}`, the baseline included."""


class PairwiseOptions(TrackOptions):
    baseline: str
    """Name of the baseline every model is compared with: a model of the run, unless the track's
    answers for it come from a file (`PairwiseScoring.file_anchor`)."""
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


@dataclass(frozen=True)
class FileAnchor:
    """The baseline's answers read from a file rather than asked of a model of the run.

    `answers` maps a sample id to the answer as a `Response` (its `usage.completion_tokens` the
    file's token count, 0 when it gives none), so that it is judged and measured exactly as a
    model's answer with the same text would be."""

    name: str
    answers: Mapping[str, Response]
    source: str


class PairwiseScoring(TrackBase):
    """Base for a track whose `options` is a PairwiseOptions: `score`, `summarize`, `aggregate`.

    A track's samples may carry a `category` in `meta` (a per-category board is fitted for it).
    A track that sets `file_anchor` judges every model against those answers; a model of the run
    named like the file's baseline is the baseline (not judged), as a model baseline is.
    """

    options: PairwiseOptions
    file_anchor: FileAnchor | None = None

    @property
    def baseline_name(self) -> str:
        return self.options.baseline if self.file_anchor is None else self.file_anchor.name

    def required_models(self) -> Mapping[str, str]:
        return {"baseline": self.options.baseline} if self.file_anchor is None else {}

    def baseline_answer(self, sample: Sample, context: ScoringContext) -> Response | None:
        """The baseline's answer to `sample`: the file's, else the baseline model's (cached)."""
        if self.file_anchor is not None:
            return self.file_anchor.answers.get(sample.id)
        return context.responses_of(self.options.baseline, sample.request)

    @property
    def judge_settings(self) -> JudgeSettings:  # type: ignore[override]
        """The `reference`'s judge limits (`reference_judging`)."""
        return reference_judging(self.options.reference).settings

    @property
    def panel_verdicts(self) -> PairwiseLabels:  # type: ignore[override]
        """Labels as the reference scorer reads them (arena-hard v2: the last match)."""
        return PairwiseLabels(reference_judging(self.options.reference).rules)

    @cached_property
    def template(self) -> PairwiseTemplate:
        """The judge prompt, read once per track rather than once per judged sample."""
        return load_pairwise_template(self.options.template)

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        baseline_name = self.baseline_name
        if context.model == baseline_name:
            tokens = {"token_len": _style(response)["token_len"]} if response.ok else {}
            return Scored(sample.id, {}, outcome="ok", extra={"role": BASELINE_ROLE, **tokens})
        baseline = self.baseline_answer(sample, context)
        missing = "baseline_missing" if self.file_anchor is None else "anchor_missing"
        reason = _not_judgeable(response, baseline, context, missing)
        if reason is not None:
            return Scored(sample.id, {}, outcome=reason, extra={"baseline": baseline_name})
        assert baseline is not None and context.judge is not None
        template = self.template
        judging = reference_judging(self.options.reference)
        games = await judge_pair(
            context.judge,
            template,
            question=sample.request,
            model_answer=response.text,
            baseline_answer=baseline.text,
            rules=judging.rules,
            settings=judging.settings,
            attempts=judging.attempts,
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
        """One model's counts; `avg_tokens` is its mean answer length over the judged prompts
        (the baseline model's: over its answers), None when there is none."""
        outcomes: dict[str, int] = {}
        for s in scored:
            outcomes[s.outcome] = outcomes.get(s.outcome, 0) + 1
        source = "model" if self.file_anchor is None else "file"
        if any(s.extra.get("role") == BASELINE_ROLE for s in scored):
            own = [s.extra["token_len"] for s in scored if "token_len" in s.extra]
            return SummaryReport(
                {
                    "role": BASELINE_ROLE,
                    "judged_prompts": 0,
                    "avg_tokens": _mean(own),
                    "baseline_source": source,
                    "outcomes": outcomes,
                }
            )
        judged = [e for s in scored if (e := PairwiseEvidence.from_extra(s.extra)) is not None]
        unparseable_games = sum(g["outcome"] != "parsed" for e in judged for g in e.games)
        return SummaryReport(
            {
                "judged_prompts": len(judged),
                "unparseable_games": unparseable_games,
                "avg_tokens": _mean([e.model_style["token_len"] for e in judged]),
                "baseline": self.baseline_name,
                "baseline_source": source,
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
        board = _with_avg_tokens(board, records, self.baseline_name)
        return TrackBoard(board, [verdict_record_to_dict(r) for r in records])

    def verdict_settings(self) -> VerdictSettings:
        """The board's own fit: plain (a `style_control: true` track also gets the style-
        controlled companion), except ProBench's reference, which is always style-controlled."""
        return VerdictSettings(
            reference=self.options.reference,
            baseline=self.baseline_name,
            style_control=self.options.reference == "probench",
            weight=self.options.weight,
            first_game_only=self.options.first_game_only,
            rounds=self.options.bootstrap_rounds,
            seed=self.options.seed,
            category=None,
        )


@dataclass(frozen=True)
class ReferenceJudging:
    """How a reference scorer judges a game: how it reads a label, how often it asks, and
    its judge's limits."""

    rules: VerdictRules
    attempts: JudgeAttempts
    settings: JudgeSettings


#: arena-hard-auto v2: one call with 16000 new tokens, read by its last label.
_ARENA_HARD_V2 = ReferenceJudging(LAST_MATCH_RULES, ARENA_HARD_V2_ATTEMPTS, ARENA_HARD_V2_JUDGE)
#: arena-hard-auto v0.1 (and ProBench's single-label rule): one label only, a reply without
#: one nudged once, 4096 new tokens.
_ARENA_HARD_V01 = ReferenceJudging(STRICT_RULES, ARENA_HARD_V01_ATTEMPTS, PAIRWISE_JUDGE)


def reference_judging(reference: str) -> ReferenceJudging:
    """How the `reference` scorer judges a game (all at temperature 0)."""
    return _ARENA_HARD_V2 if reference == "arena-hard-v2" else _ARENA_HARD_V01


def _with_avg_tokens(
    board: RatingBoard, records: Sequence[VerdictRecord], baseline: str
) -> RatingBoard:
    """`board` with `settings.extra["avg_tokens"]` on it, its style twin and each category board
    (a category's averages over that category's records): see `_avg_tokens`."""

    def put(target: RatingBoard, chosen: Sequence[VerdictRecord]) -> RatingBoard:
        extra = {**target.settings.extra, AVG_TOKENS: _avg_tokens(chosen, baseline)}
        twin = target.style_control
        return replace(
            target,
            settings=replace(target.settings, extra=extra),
            style_control=None if twin is None else put(twin, chosen),
        )

    categories = {
        name: put(category, [r for r in records if r.category == name])
        for name, category in board.categories.items()
    }
    return replace(put(board, records), categories=categories)


def _avg_tokens(records: Sequence[VerdictRecord], baseline: str) -> dict[str, float]:
    """Mean answer tokens (paper Tables 7-8 "Token #"), model names sorted: each judged model's
    over its judged prompts, the baseline's over every prompt judged against it (counted once
    per prompt; its answer is the same for every model). Records without style are left out."""
    lengths: dict[str, list[float]] = {}
    for r in records:
        if r.model_style is not None:
            lengths.setdefault(r.model, []).append(r.model_style.tokens)
    by_prompt = {r.uid: r.baseline_style.tokens for r in records if r.baseline_style}
    if by_prompt:
        lengths[baseline] = list(by_prompt.values())
    return {name: float(sum(v) / len(v)) for name, v in sorted(lengths.items())}


def _mean(values: Sequence[int]) -> float | None:
    return float(sum(values) / len(values)) if values else None


def _not_judgeable(
    response: Response, baseline: Response | None, context: ScoringContext, missing: str
) -> str | None:
    if not response.ok:
        return response.status.value
    if baseline is None or not baseline.ok:
        return missing
    if context.judge is None:
        return "judge_missing"
    return None


def _style(response: Response) -> dict[str, Any]:
    """Style metadata as the references record it; tokens from the backend's own count when it
    reports one (the references count with tiktoken, which needs a download), else words. The
    length is the answer's, without any reasoning trace: what a reader (or the arena's style
    control) sees."""
    counts = answer_style_counts(response.text)
    tokens = response.answer_tokens or len(response.text.split())
    return {"token_len": tokens, **counts}
