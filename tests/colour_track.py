"""A small track used only by the foundation's tests: name the colour of a drawn square.

It exercises the whole path (images in requests, oracle answers, scoring, summaries) without
depending on any benchmark track.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import ClassVar

from PIL import Image

from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.messages import GenerationParams, Response, user_request
from vlmscope.tracks.base import (
    Sample,
    Scored,
    ScoringContext,
    SummaryReport,
    TrackBase,
    TrackOptions,
)
from vlmscope.tracks.spec import TrackSpec

COLOURS = {
    "red": (220, 30, 30),
    "green": (30, 180, 60),
    "blue": (40, 60, 220),
    "yellow": (230, 210, 40),
}


class ColourOptions(TrackOptions):
    n_samples: int = 24
    max_new_tokens: int = 8


def square_png(rgb: tuple[int, int, int], size: int) -> bytes:
    image = Image.new("RGB", (size, size), (255, 255, 255))
    image.paste(rgb, (size // 4, size // 4, 3 * size // 4, 3 * size // 4))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


class ColourTrack(TrackBase):
    name: ClassVar[str] = "colours"

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        self.options = ColourOptions.model_validate(config.options)
        self.limit = limit

    def samples(self, model: ModelConfig) -> list[Sample]:
        names = sorted(COLOURS)
        out = []
        for i in range(self.options.n_samples):
            colour = names[i % len(names)]
            n_images = i % 3
            images = [square_png(COLOURS[colour], 24 + 8 * k + i) for k in range(n_images)]
            question = "What colour is the square?" + " Answer in one word." * (i % 4)
            request = user_request(
                *images,
                question,
                params=GenerationParams(max_new_tokens=self.options.max_new_tokens),
            )
            sample = Sample(f"colour-{i:03d}", request, {"answer": colour}, reference=colour)
            out.append(sample)
        return out[: self.limit] if self.limit else out

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        if not response.ok:
            return Scored(sample.id, {"accuracy": 0.0}, outcome=response.status.value)
        parsed = response.text.strip().lower().rstrip(".")
        return Scored(
            sample.id, {"accuracy": float(parsed == sample.meta["answer"])}, parsed=parsed
        )

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> SummaryReport:
        accuracy = sum(s.scores["accuracy"] for s in scored) / max(1, len(scored))
        return SummaryReport({"accuracy": accuracy, "n": len(scored)})


SPEC = TrackSpec(name="colours", title="Colours", load=lambda: ColourTrack)
