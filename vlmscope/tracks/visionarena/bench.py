"""VisionArena-Bench (paper Sec. 6 and 14): 500 user prompts, each model judged against an anchor.

- data: `lmarena-ai/vision-arena-bench-v0.1` rows (`rows.read_bench_rows`): the first user
  turn's text and its image(s);
- request: the image(s), then the question (the paper does not say the order; the judge is
  given the images first too); greedy, 1024 new tokens (the paper gives no answer limit);
- anchor: a model of the run (`options.baseline`, the paper's is GPT-4-Turbo);
- score / summarize / aggregate: `vlmscope.tracks.pairwise.PairwiseScoring` with the paper's
  Sec. 14 judge prompt (`visionarena_bench_judge.txt`), both orders, and the arena-hard-auto
  v0.1 preset (the scorer the bench was built on): every model and the anchor in one fit, score
  and win rate against the anchor with 95% intervals (paper Tables 7-8), one board per category.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.messages import GenerationParams, ImagePart, user_request
from vlmscope.tracks.base import Sample
from vlmscope.tracks.pairwise import PairwiseOptions, PairwiseScoring
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, BenchRow, read_bench_rows

ANSWER_PARAMS = GenerationParams(max_new_tokens=1024, temperature=0.0)
PAPER_ANCHOR = "gpt-4-turbo"


class BenchOptions(PairwiseOptions):
    baseline: str = PAPER_ANCHOR
    """The anchor: a model of the run (the paper's is GPT-4-Turbo)."""


class VisionArenaBenchTrack(PairwiseScoring):
    name: ClassVar[str] = "visionarena_bench"

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        self.options = BenchOptions.model_validate(config.options)
        if config.judge is None:
            raise ValueError(
                "judge: the bench compares each answer with the anchor's; set `judge:`"
            )
        data_dir = Path(config.data_dir) if config.data_dir else SAMPLE_DIR / "bench"
        self.rows: list[BenchRow] = read_bench_rows(data_dir)[:limit]

    def samples(self, model: ModelConfig | None = None) -> list[Sample]:
        return [_sample(row) for row in self.rows]


def _sample(row: BenchRow) -> Sample:
    images = [ImagePart(data, f"{row.question_id}-{i}") for i, data in enumerate(row.images)]
    return Sample(
        id=row.question_id,
        request=user_request(*images, row.question, params=ANSWER_PARAMS),
        meta={"category": row.category} if row.category else {},
    )
