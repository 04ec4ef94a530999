"""A small pairwise track used only by tests: the colour prompts, judged against a baseline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from tests.colour_track import ColourOptions, ColourTrack
from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.pairwise import PairwiseOptions, PairwiseScoring


class ColourPairwiseTrack(PairwiseScoring):
    name: ClassVar[str] = "colours_pairwise"

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        self.options = PairwiseOptions.model_validate(config.options)
        colour_config = config.model_copy(
            update={"options": ColourOptions(n_samples=8).model_dump()}
        )
        self.prompts = ColourTrack(colour_config, limit=limit)

    def samples(self, model: ModelConfig) -> list[Sample]:
        return [
            Sample(s.id, s.request, {**s.meta, "model": model.name, "category": "colours"})
            for s in self.prompts.samples(model)
        ]

    def write_extras(
        self, out_dir: Path, samples: Sequence[Sample], scored: Sequence[Scored]
    ) -> None:
        return None

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> dict[str, Any]:
        return PairwiseScoring.summarize(self, samples, scored)
