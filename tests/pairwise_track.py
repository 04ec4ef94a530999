"""A small pairwise track used only by tests: the colour prompts, judged against a baseline."""

from __future__ import annotations

from typing import ClassVar

from tests.colour_track import ColourOptions, ColourTrack
from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.tracks.base import Sample
from vlmscope.tracks.pairwise import PairwiseOptions, PairwiseScoring
from vlmscope.tracks.spec import TrackSpec


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
            Sample(s.id, s.request, {**s.meta, "category": "colours"}, s.reference)
            for s in self.prompts.samples(model)
        ]


SPEC = TrackSpec(
    name="colours_pairwise",
    title="Colours (pairwise)",
    load=lambda: ColourPairwiseTrack,
    page="ratings",
)
