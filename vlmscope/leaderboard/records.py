"""Summary rows of result datasets as typed records: per-model summaries and rating boards.

The writer stores a track's summary and the run's counts as JSON text (their shape differs per
track). A page must still render when one folder holds something unexpected, so malformed JSON
becomes an empty mapping here and shows as a missing number, never as a crashed Space.

A rating board's folder (`kind` = "rating_board") holds one fit over every model of a track;
its board is read into a `RatingBoard`, and one that does not parse raises `BadBoard`, which
the store reports as a problem of that folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.ratings.board import RatingBoard

# Status values other than "ok" are failed requests (vlmscope.messages.Status); an outcome that
# repeats one of them is the same failure seen again, so it is not counted twice.
FAILED_STATUSES = ("request_failed", "context_overflow")
BOARD_KIND = "rating_board"  # `vlmscope.runner.results.BOARD_KIND`


class BadBoard(ValueError):
    """A rating-board row whose board JSON is not a `RatingBoard`."""


@dataclass(frozen=True)
class SummaryRecord:
    """One (model, track) summary row with its JSON columns decoded."""

    model: str
    track: str
    n_samples: int
    scores: Mapping[str, Any]
    status_counts: Mapping[str, int]
    outcome_counts: Mapping[str, int]
    config_hash: str
    started_at: str
    finished_at: str
    folder: Path

    @property
    def failed(self) -> int:
        """Requests that never produced a response (any status but "ok")."""
        return sum(n for status, n in self.status_counts.items() if status != "ok")

    @property
    def unparseable(self) -> int:
        """Items whose answer or verdict could not be read (outcomes naming "unparseable")."""
        return sum(n for outcome, n in self.outcome_counts.items() if "unparseable" in outcome)

    @property
    def other_flags(self) -> int:
        """Every other outcome but "ok" (a missing judge, a prompt over the image budget, ...)."""
        return sum(
            n
            for outcome, n in self.outcome_counts.items()
            if outcome != "ok" and "unparseable" not in outcome and outcome not in FAILED_STATUSES
        )


def json_object(text: Any) -> dict[str, Any]:
    """A JSON object column decoded; anything else (bad JSON, a list, None) is `{}`."""
    if not isinstance(text, str):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def count_map(text: Any) -> dict[str, int]:
    """A JSON `{name: count}` column, keeping only integer counts."""
    return {
        str(k): int(v)
        for k, v in json_object(text).items()
        if isinstance(v, int) and not isinstance(v, bool)
    }


def summary_record(row: Mapping[str, Any], folder: Path) -> SummaryRecord:
    return SummaryRecord(
        model=str(row.get("model") or ""),
        track=str(row.get("track") or ""),
        n_samples=int(row.get("n_samples") or 0),
        scores=json_object(row.get("scores")),
        status_counts=count_map(row.get("status_counts")),
        outcome_counts=count_map(row.get("outcome_counts")),
        config_hash=str(row.get("config_hash") or ""),
        started_at=str(row.get("started_at") or ""),
        finished_at=str(row.get("finished_at") or ""),
        folder=folder,
    )


def latest_per_run(records: Iterable[SummaryRecord]) -> list[SummaryRecord]:
    """One record per (model, track): the one that finished last.

    A results folder can hold several runs of the same model on the same track (two configs'
    output dirs side by side); the leaderboard shows the newest, as a re-run replaces a result.
    """
    latest: dict[tuple[str, str], SummaryRecord] = {}
    for record in records:
        if not record.model or not record.track:
            continue
        key = (record.model, record.track)
        if key not in latest or record.finished_at >= latest[key].finished_at:
            latest[key] = record
    return sorted(latest.values(), key=lambda r: (r.track, r.model))


@dataclass(frozen=True)
class BoardRecord:
    """One track's rating board (one fit over all its models) and where it came from."""

    track: str
    board: RatingBoard
    source: str
    """What produced it: `run`, or the ratings command with its input file's name."""
    n_rows: int
    """Battles or verdicts the board was fitted on (rows of the folder's `details`)."""
    config_hash: str
    started_at: str
    finished_at: str
    folder: Path


def by_model(records: Iterable[SummaryRecord], track: str) -> dict[str, SummaryRecord]:
    """The track's records keyed by model name."""
    return {r.model: r for r in records if r.track == track}


def is_board_row(row: Mapping[str, Any]) -> bool:
    return row.get("kind") == BOARD_KIND


def board_record(row: Mapping[str, Any], folder: Path) -> BoardRecord:
    """A rating-board summary row as a record; `BadBoard` when the board does not parse."""
    track = str(row.get("track") or "")
    if not track:
        raise BadBoard("the board names no track")
    try:
        board = RatingBoard.from_json(json.loads(str(row.get("board"))))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise BadBoard(
            f"the board of {track!r} does not parse: {type(err).__name__}: {err}"
        ) from None
    return BoardRecord(
        track=track,
        board=board,
        source=str(row.get("source") or ""),
        n_rows=int(row.get("n_rows") or 0),
        config_hash=str(row.get("config_hash") or ""),
        started_at=str(row.get("started_at") or ""),
        finished_at=str(row.get("finished_at") or ""),
        folder=folder,
    )


def latest_per_track(records: Iterable[BoardRecord]) -> dict[str, BoardRecord]:
    """One board per track, the one that finished last (a re-rating replaces a board)."""
    latest: dict[str, BoardRecord] = {}
    for record in records:
        if record.track not in latest or record.finished_at >= latest[record.track].finished_at:
            latest[record.track] = record
    return dict(sorted(latest.items()))
