"""What a track is: how a row becomes a request, and how responses become scores.

A track owns no loop, cache or file format. A run has three phases, and a track takes part in
each through one method:

1. generate: the runner asks `samples(model)` for every model and sends the requests through
   the model's backend (cached, batched, split across processes);
2. score: once every model has answered, `score` grades each response (judged tracks get a
   `Judge`; a pairwise track reads the baseline's answer, which is now certain to exist) and
   `summarize` turns one model's scored samples into a typed `Report`;
3. aggregate: `aggregate` sees every model's results at once, for what only a joint view can
   give (one Bradley-Terry board over all models); most tracks return None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import ConfigDict

from vlmscope.config import ModelConfig
from vlmscope.dependencies import Dependency
from vlmscope.judges.client import Judge
from vlmscope.judges.panel import VerdictCodec
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Request, Response
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.stand_ins import StandIn
from vlmscope.typed_values import AsWritten


@dataclass(frozen=True)
class FollowUp:
    """A later user turn of a multi-turn sample (text only), and the oracle's answer to it."""

    text: str
    reference: str | None = None


@dataclass(frozen=True)
class Sample:
    """One evaluation item. `meta` holds what scoring needs (gold answer, task, categories) and
    is stored with the details; `reference` is the answer the oracle backend gives (the gold in
    the form the track parses), never sent to a model and not part of the request's hash.

    `followups` makes the sample a conversation: `request` is its first turn, and each later
    turn is asked with the model's own earlier answers as history (`vlmscope.tracks.conversation`).
    """

    id: str
    request: Request
    meta: Mapping[str, Any] = field(default_factory=dict)
    reference: str | None = None
    followups: tuple[FollowUp, ...] = ()


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


class Report(Protocol):
    """What `summarize` returns: one model's numbers on one track, computed once.

    `summary()` is the JSON stored in the summary dataset (headline numbers first);
    `write_files` renders the track's own files (official formats, readable tables) from what
    the report already holds, never by scoring or bootstrapping again.
    """

    def summary(self) -> dict[str, Any]: ...

    def write_files(self, out_dir: Path) -> None: ...


@dataclass(frozen=True)
class SummaryReport:
    """A report that is only its summary mapping, for tracks with no files of their own."""

    scores: Mapping[str, Any]

    def summary(self) -> dict[str, Any]:
        return dict(self.scores)

    def write_files(self, out_dir: Path) -> None:
        return None


@dataclass(frozen=True)
class ModelResult:
    """One model's scored samples on one track, as the aggregate phase sees them."""

    model: str
    samples: Sequence[Sample]
    responses: Sequence[Response]
    scored: Sequence[Scored]
    report: Report


@dataclass(frozen=True)
class TrackBoard:
    """A track's joint result over every model of a run: one rating board, and one JSON-able
    row per battle or verdict it was fitted on (the details of the board's result dataset)."""

    board: RatingBoard
    details: Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class ScoringContext:
    """What scoring may use beyond the response: the name of the model being scored, the run's
    judge (None when the track config names none) and the cached responses of the run's other
    models (a pairwise track compares each model with a baseline model's answer to the same
    request). Scoring starts after every model has answered, so another model's answer is
    missing only if its request failed."""

    model: str = ""
    judge: Judge | None = None
    responses_of: Callable[[str, Request], Response | None] = lambda model, request: None


class TrackOptions(AsWritten):
    """Base for a track's typed options (the `options:` mapping of a track in a config); a
    number is taken as written (`true` is not 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Track(Protocol):
    """A benchmark the runner evaluates (`docs/adding-a-track.md` writes a whole one).

    The registry builds it as `cls(config, limit=limit)` (`registry.build_track`) when the run
    is planned, before any model loads: the constructor validates `config.options` (a
    `ValueError` names the option), reads the rows of `config.data_dir`, else of the shipped
    sample, and keeps the first `limit` of them (MEGA-Bench: of each task) as `rows` (planning
    refuses a track whose `rows`, or without them whose samples, are empty). `name` is its
    spec's name.
    """

    name: ClassVar[str]

    @property
    def judge_settings(self) -> JudgeSettings:
        """How this track asks its judge (the benchmark's official limits): the one place they
        live. A class value, or one that follows the track's options (the pairwise tracks'
        `reference`)."""

    @property
    def panel_verdicts(self) -> VerdictCodec | None:
        """How its judge replies hold a verdict (for a judge panel); None: no panel."""
        ...

    def samples(self, model: ModelConfig) -> list[Sample]:
        """Every sample of the configured data, in a stable order, as `model` should see it.

        Most tracks ignore `model`; MEGA-Bench fits each prompt to the model's image budget.
        """
        ...

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        """Score one response. Never raise for a bad response: return an outcome instead."""
        ...

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> Report:
        """One model's numbers, computed once (see `Report`)."""
        ...

    def aggregate(self, results: Mapping[str, ModelResult]) -> TrackBoard | None:
        """The joint view over every model of the run (keyed by model name), or None."""
        ...

    def required_models(self) -> Mapping[str, str]:
        """Models of the run this track reads answers from, keyed by the option that names
        them (`{"baseline": "gpt-4o"}`), so a config without them is rejected at load."""
        ...

    def dependencies(self) -> list[Dependency]:
        """What the configured data needs from the system (checked before a run starts)."""
        ...

    def stand_ins(self) -> list[StandIn]:
        """What of the track's own scoring stands in for the benchmark's protocol (a grader
        that is not the paper's), named in every summary and on the Space's pages."""
        ...


class TrackBase:
    """Defaults for the optional parts of `Track`: no joint view, no other model needed, the
    default judge settings (greedy, 512 new tokens), the benchmark's own scoring."""

    judge_settings: ClassVar[JudgeSettings] = JudgeSettings()
    panel_verdicts: VerdictCodec | None = None
    """How the track's judge replies hold a verdict, so a judge panel can aggregate them; None:
    the track takes no panel."""

    def aggregate(self, results: Mapping[str, ModelResult]) -> TrackBoard | None:
        return None

    def required_models(self) -> Mapping[str, str]:
        return {}

    def dependencies(self) -> list[Dependency]:
        return []

    def stand_ins(self) -> list[StandIn]:
        return []
