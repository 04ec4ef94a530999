"""What a track is: how a row becomes a request, and how a response becomes scores.

A track owns no loop, cache or file format. The runner asks it for samples, sends their requests
through a backend (cached, batched, split across processes), hands each response back to
`score`, and gives all scored samples to `summarize`. Judged tracks get a `Judge` in `score`;
its calls are cached like model responses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict

from vlmscope.config import ModelConfig
from vlmscope.judges.client import Judge
from vlmscope.messages import Request, Response


@dataclass(frozen=True)
class Sample:
    """One evaluation item. `meta` holds what scoring needs (gold answer, task, categories)."""

    id: str
    request: Request
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scored:
    """A scored sample, one row of the details dataset.

    `outcome` is "ok" or the reason the score is not a plain model judgement
    ("request_failed", "judge_unparseable", ...). Parity sometimes demands a number anyway
    (an unparseable MEGA-Bench judge reply scores 0); the outcome keeps the failure visible.
    `extra` holds JSON-able evidence: judge replies, per-field details.
    """

    sample_id: str
    scores: Mapping[str, float]
    parsed: str | None = None
    outcome: str = "ok"
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoringContext:
    """What scoring may use beyond the response: the run's judge (None when the track config
    names none) and the cached responses of the run's other models (a pairwise track compares
    each model with a baseline model's answer to the same request)."""

    judge: Judge | None = None
    responses_of: Callable[[str, Request], Response | None] = lambda model, request: None


class TrackOptions(BaseModel):
    """Base for a track's typed options (the `options:` mapping of a track in a config)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Track(Protocol):
    name: ClassVar[str]

    def samples(self, model: ModelConfig) -> list[Sample]:
        """Every sample of the configured data, in a stable order, as `model` should see it.

        Most tracks ignore `model`; MEGA-Bench fits each prompt to the model's image budget.
        """
        ...

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        """Score one response. Never raise for a bad response: return an outcome instead."""
        ...

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> dict[str, Any]:
        """Headline numbers and breakdowns for the summary dataset (JSON-able)."""
        ...

    def write_extras(
        self, out_dir: Path, samples: Sequence[Sample], scored: Sequence[Scored]
    ) -> None:
        """Optional track-specific files beside the result datasets (e.g. official formats)."""
        ...
