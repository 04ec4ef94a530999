"""ProBench (Yang et al., 2025): open-ended expert queries, judged pairwise against a baseline.

- data: `HelloKKMe/ProBench` rows (`vlmscope.tracks.probench.rows`), one track (`subset:`
  singleround, multi-round, multi-linguistic) or all three (default);
- request: turn 1 is the question text then the image; later turns are text only, asked with
  the model's OWN earlier answers as history, each turn its own cached request; greedy, 8192
  new tokens (the official answer script);
- baseline: the rows' `gpt` turns (`gpt-4o-2024-05-13`) by default, or a model of the run
  named by `options.baseline_model`;
- score: the judge compares the model with the baseline in two games with positions swapped,
  in ProBench's exact message format (`judging.py`); unparseable verdicts are counted;
- summarize: ProBench's own table for this model (`tables.official_tables`);
- aggregate: all models in one style-controlled fit, per track and breakdown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.judges.panel_codecs import PairwiseLabels
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import GenerationParams, ImagePart, Request, Response, user_request
from vlmscope.ratings.boards.judge_agreement import HumanLabel, read_human_labels
from vlmscope.ratings.boards.verdict_presets import PROBENCH, VerdictSettings
from vlmscope.ratings.inputs.verdict_records import verdict_record_to_dict
from vlmscope.tracks.base import (
    FollowUp,
    ModelResult,
    Sample,
    Scored,
    ScoringContext,
    TrackBase,
    TrackBoard,
    TrackOptions,
)
from vlmscope.tracks.conversation import walk_conversations
from vlmscope.tracks.pairwise import PairwiseEvidence
from vlmscope.tracks.probench import BASELINE_NAME
from vlmscope.tracks.probench.answer_style import (
    TokenCounter,
    baseline_answer_style,
    model_answer_style,
)
from vlmscope.tracks.probench.breakdowns import breakdown_of
from vlmscope.tracks.probench.judging import (
    PROBENCH_JUDGE,
    judge_game,
    judge_game_request,
    judge_image,
    system_prompt,
)
from vlmscope.tracks.probench.report import ProBenchReport, records_of
from vlmscope.tracks.probench.rows import (
    CHAT_TYPES,
    SAMPLE_DIR,
    ProBenchRow,
    read_rows,
)
from vlmscope.tracks.probench.tables import Subsets, joint_board

#: gen_answer_vllm.py: temperature 0, max_tokens 8192.
ANSWER_PARAMS = GenerationParams(max_new_tokens=8192, temperature=0.0)
BASELINE_ROLE = "baseline"


class ProBenchOptions(TrackOptions):
    baseline_model: str | None = Field(
        default=None,
        description="a model of the run that answers as the baseline; default: the rows' answers",
    )
    weight: int = Field(default=3, ge=1, description="how often a `>>` verdict counts")
    first_game_only: bool = False
    bootstrap_rounds: int = Field(default=100, ge=1)
    seed: int = 42
    breakdowns: bool = Field(default=True, description="also rate each breakdown subset")
    token_counter: TokenCounter = Field(
        default="words",
        description="answer length for style control: whitespace words, or tiktoken's "
        "cl100k_base as upstream (needs tiktoken and its cached encoding)",
    )
    human_labels: str | None = Field(
        default=None,
        description="JSONL of human verdicts; the summary reports the judge's agreement",
    )


class ProBenchTrack(TrackBase):
    name: ClassVar[str] = "probench"
    judge_settings: ClassVar[JudgeSettings] = PROBENCH_JUDGE
    panel_verdicts = PairwiseLabels()  # ProBench reads its labels with the strict rules

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        self.options = ProBenchOptions.model_validate(config.options)
        subset = config.subset or "all"
        if subset != "all" and subset not in CHAT_TYPES:
            raise ValueError(f"subset: {subset!r} is not all or one of {', '.join(CHAT_TYPES)}")
        if config.judge is None:
            raise ValueError(
                "judge: the probench track compares answers with a judge; set `judge:`"
            )
        self.data_dir = Path(config.data_dir) if config.data_dir else SAMPLE_DIR
        rows = read_rows(self.data_dir, None if subset == "all" else subset)
        self.rows: dict[str, ProBenchRow] = {row.uuid: row for row in rows[:limit]}
        self._judge_images: dict[str, ImagePart] = {}

    @property
    def baseline_name(self) -> str:
        return self.options.baseline_model or BASELINE_NAME

    def required_models(self) -> Mapping[str, str]:
        model = self.options.baseline_model
        return {} if model is None else {"baseline_model": model}

    def samples(self, model: ModelConfig | None = None) -> list[Sample]:
        return [_sample(row) for row in self.rows.values()]

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        if context.model == self.options.baseline_model:
            return Scored(sample.id, {}, extra={"role": BASELINE_ROLE})
        row = self.rows[sample.id]
        answers = _answers(sample, context, context.model)
        if answers is None:
            return Scored(
                sample.id, {}, outcome=response.status.value, extra={"error": response.error}
            )
        baseline = self._baseline_answers(sample, context)
        if baseline is None:
            return Scored(sample.id, {}, outcome="baseline_missing")
        if context.judge is None:
            return Scored(sample.id, {}, outcome="judge_missing")
        image = self.judge_image(row)
        questions = row.questions
        games = (
            await judge_game(
                context.judge,
                judge_game_request(row.chat_type, image, questions, baseline, answers),
                model_first=False,
            ),
            await judge_game(
                context.judge,
                judge_game_request(row.chat_type, image, questions, answers, baseline),
                model_first=True,
            ),
        )
        counter = self.options.token_counter
        evidence = PairwiseEvidence(
            baseline=self.baseline_name,
            template=system_prompt(row.chat_type).template,
            games=games,
            model_style=model_answer_style(answers, counter),
            baseline_style=baseline_answer_style(baseline, counter),
            category=row.chat_type,
        )
        return Scored(
            sample.id,
            scores={},
            parsed=" | ".join(str(g["label"] or "-") for g in games),
            outcome="ok" if all(g["outcome"] == "parsed" for g in games) else "judge_unparseable",
            extra={
                **evidence.to_extra(),
                "model": context.model,
                "chat_type": row.chat_type,
                "turns": [
                    {"question": q, "answer": a, "baseline_answer": b}
                    for q, a, b in zip(questions, answers, baseline, strict=True)
                ],
                "breakdown": breakdown_of(row),
            },
        )

    def judge_image(self, row: ProBenchRow) -> ImagePart:
        """The row's image as the judge gets it, encoded once per row (not once per model)."""
        if row.uuid not in self._judge_images:
            self._judge_images[row.uuid] = judge_image(row.image)
        return self._judge_images[row.uuid]

    def _baseline_answers(self, sample: Sample, context: ScoringContext) -> tuple[str, ...] | None:
        if self.options.baseline_model is None:
            return self.rows[sample.id].reference_answers
        return _answers(sample, context, self.options.baseline_model)

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> ProBenchReport:
        return ProBenchReport.of(
            scored,
            self.verdict_settings,
            self.subsets,
            with_breakdowns=self.options.breakdowns,
            token_counter=self.options.token_counter,
            baseline_source="rows" if self.options.baseline_model is None else "model",
            human_labels=self.human_labels,
        )

    def aggregate(self, results: Mapping[str, ModelResult]) -> TrackBoard | None:
        """Every judged model in one fit, records in model-name order (a bootstrap resamples rows
        by position, so the board must not depend on the order of models in the config)."""
        records = [
            record
            for model, result in sorted(results.items())
            for record in records_of(model, result.scored)
        ]
        if not records:
            return None
        board = joint_board(
            records, self.verdict_settings, self.subsets, with_breakdowns=self.options.breakdowns
        )
        return TrackBoard(board, [verdict_record_to_dict(r) for r in records])

    @cached_property
    def verdict_settings(self) -> VerdictSettings:
        return VerdictSettings(
            reference=PROBENCH,
            baseline=self.baseline_name,
            style_control=True,
            weight=self.options.weight,
            first_game_only=self.options.first_game_only,
            rounds=self.options.bootstrap_rounds,
            seed=self.options.seed,
        )

    @cached_property
    def human_labels(self) -> list[HumanLabel]:
        path = self.options.human_labels
        return [] if path is None else read_human_labels(path)

    @cached_property
    def subsets(self) -> Subsets:
        return Subsets.of(
            {uid: row.chat_type for uid, row in self.rows.items()},
            {uid: breakdown_of(row) for uid, row in self.rows.items()},
        )


def first_turn_request(row: ProBenchRow) -> Request:
    """Turn 1 as the official answer script sends it: the first question, then the image."""
    return user_request(
        row.questions[0],
        ImagePart(row.image, f"{row.uuid}.{row.image_format.lower()}"),
        params=ANSWER_PARAMS,
    )


def _sample(row: ProBenchRow) -> Sample:
    """Turn 1, then each later question as a follow-up."""
    return Sample(
        id=row.uuid,
        request=first_turn_request(row),
        meta={
            "uuid": row.uuid,
            "chat_type": row.chat_type,
            "language": row.language,
            "rounds": row.rounds,
        },
        reference=row.reference_answers[0],
        followups=tuple(
            FollowUp(question, reference)
            for question, reference in zip(
                row.questions[1:], row.reference_answers[1:], strict=True
            )
        ),
    )


def _answers(sample: Sample, context: ScoringContext, model: str) -> tuple[str, ...] | None:
    """`model`'s answer to every turn, or None when a turn failed or is missing."""
    (conversation,) = walk_conversations(
        [sample], lambda requests: [context.responses_of(model, r) for r in requests]
    )
    responses = conversation.responses
    if len(responses) != 1 + len(sample.followups) or not all(r.ok for r in responses):
        return None
    return tuple(r.text for r in responses)
