"""VisionArena-Bench (paper Sec. 6 and 14): 500 user prompts, each model judged against an anchor.

- data: `lmarena-ai/vision-arena-bench-v0.1` rows (`rows.read_bench_rows`): the first user
  turn's text and its image(s);
- request: the image(s), then the question (the paper does not say the order; the judge is
  given the images first too); greedy, 1024 new tokens (the paper gives no answer limit);
- anchor (the paper's is GPT-4-Turbo): a model of the run (`options.baseline`), or answers from a
  file (`options.anchor_answers`, `anchor_answers.py`), which makes the anchor part of the data
  as ProBench's baseline answers are: no model of the run then, its answers are the samples'
  references (the oracle answers with them), and a prompt without one is `anchor_missing`;
- score / summarize / aggregate: `vlmscope.tracks.pairwise.PairwiseScoring` with the paper's
  Sec. 14 judge prompt (`visionarena_bench_judge.txt`), both orders, and the arena-hard-auto
  v0.1 preset (the scorer the bench was built on): every model and the anchor in one fit, score
  and win rate against the anchor with 95% intervals and average answer tokens (paper Tables
  7-8: each summary's `avg_tokens`, the board's `settings.extra["avg_tokens"]`), one board per
  category.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import Field

from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.messages import GenerationParams, ImagePart, user_request
from vlmscope.tracks.base import Sample
from vlmscope.tracks.pairwise import PairwiseOptions, PairwiseScoring
from vlmscope.tracks.visionarena.anchor_answers import anchor_file, read_anchor_answers
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, BenchRow, read_bench_rows

ANSWER_PARAMS = GenerationParams(max_new_tokens=1024, temperature=0.0)
PAPER_ANCHOR = "gpt-4-turbo"


class BenchOptions(PairwiseOptions):
    baseline: str = PAPER_ANCHOR
    """The anchor: a model of the run (the paper's is GPT-4-Turbo), or, with `anchor_answers`,
    the name the file's answers go by when its rows name no `model`."""
    anchor_answers: str | None = Field(
        default=None,
        description="JSON-lines or parquet file of the anchor's answers (question_id, answer, "
        "optional model, token_len); relative: inside the bench's data folder",
    )


class VisionArenaBenchTrack(PairwiseScoring):
    name: ClassVar[str] = "visionarena_bench"

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        if config.subset is not None:
            raise ValueError(f"subset: {config.subset!r}: VisionArena-Bench has no subsets to pick")
        self.options = options = BenchOptions.model_validate(config.options)
        if config.judge is None:
            raise ValueError(
                "judge: the bench compares each answer with the anchor's; set `judge:`"
            )
        data_dir = Path(config.data_dir) if config.data_dir else SAMPLE_DIR / "bench"
        rows = read_bench_rows(data_dir)
        self.rows: list[BenchRow] = rows[:limit]
        if options.anchor_answers is not None:
            self.file_anchor = read_anchor_answers(
                anchor_file(options.anchor_answers, data_dir),
                {row.question_id for row in rows},
                options.baseline,
            )
            named = self.file_anchor.name
            if "baseline" in options.model_fields_set and named != options.baseline:
                raise ValueError(
                    f"options.baseline: {options.baseline!r}, but the rows of "
                    f"{self.file_anchor.source} name the anchor {named!r}"
                )

    def samples(self, model: ModelConfig | None = None) -> list[Sample]:
        answers = {} if self.file_anchor is None else self.file_anchor.answers
        return [
            _sample(row, None if (a := answers.get(row.question_id)) is None else a.text)
            for row in self.rows
        ]


def _sample(row: BenchRow, anchor_answer: str | None) -> Sample:
    images = [ImagePart(data, f"{row.question_id}-{i}") for i, data in enumerate(row.images)]
    return Sample(
        id=row.question_id,
        request=user_request(*images, row.question, params=ANSWER_PARAMS),
        meta={"category": row.category} if row.category else {},
        reference=anchor_answer,
    )
