"""Summary rows of result datasets as typed records: per-model summaries and rating boards.

The writer stores a track's summary and the run's counts as typed columns (structs, format 3)
or, before, as JSON text (their shape differs per track); both read the same here. A row this reader cannot use raises a `BadResult` saying why in a few words, and the
store skips its folder and lists it, so one bad folder never takes the Space down: a row in a
newer format than this code knows (`NewerFormat`, never guessed at), a summary without the
columns of its format, without a model or track, or whose scores are not a JSON object
(`BadSummary`), a board that does not parse (`BadBoard`). Within a readable summary, a count
column that is not a JSON object of integers reads as empty and a score that is not a number
shows as a missing number; a text longer than any real name is cut for display and the record
says so (`cut`, `vlmscope.leaderboard.long_values`).

Formats (`format_version`, missing = 1): 1, the first release, has the columns of
`SUMMARY_COLUMNS` and no boards; 2 adds `format_version` and rating boards, folders of their
own whose row has `kind` = "rating_board" and the board as JSON; 3 types the nested columns
(`scores`, the counts, `package_versions`, `board`: structs, not JSON text; a null struct is
an empty object, `vlmscope.typed_columns`). A model's summary, and a
run's board, may carry `limit`, the `--limit` of a debug run (null or -1: a full run); one
without the column (every row written before it was added) is a full run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.leaderboard.long_values import shown_board, shown_keys, text_column
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.stand_ins import StandIn, stand_ins_of

# Status values other than "ok" are failed requests (vlmscope.messages.Status); an outcome that
# repeats one of them is the same failure seen again, so it is not counted twice.
FAILED_STATUSES = ("request_failed", "context_overflow")
BOARD_KIND = "rating_board"  # `vlmscope.runner.results.BOARD_KIND`
FORMAT_VERSION = 3  # the newest this reader knows: `vlmscope.runner.results.FORMAT_VERSION`
SUMMARY_COLUMNS = (
    "model",
    "track",
    "n_samples",
    "scores",
    "status_counts",
    "outcome_counts",
    "config_hash",
    "started_at",
    "finished_at",
)
"""What a model's summary row needs, in formats 1 and 2 alike (the writer adds more)."""


class BadResult(ValueError):
    """A summary row that cannot be shown; the message is the short reason the page lists."""


class BadSummary(BadResult):
    """A model's summary row without the columns or values every page relies on."""


class BadBoard(BadResult):
    """A rating-board row whose board JSON is not a `RatingBoard`."""


class NewerFormat(BadResult):
    """A row written by a newer vlmscope, in a format this reader does not know."""


def format_version(row: Mapping[str, Any]) -> int:
    """The row's format: its `format_version`, 1 when it has none (the first release)."""
    value = row.get("format_version")
    if value is None:
        return 1
    if not _is_count(value) or value < 1:
        raise BadResult(f"format_version {value!r} is not a format version")
    if value > FORMAT_VERSION:
        raise NewerFormat(f"written by a newer vlmscope (format {value}); upgrade to read it")
    return int(value)


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
    limit: int | None = None
    """The run's `--limit`, None for a full run."""
    cut: tuple[str, ...] = ()
    """Columns whose text was too long to show whole (cut for display), with their lengths."""
    stand_ins: tuple[StandIn, ...] = ()
    """What stood in for a real model, judge or grader (none in summaries before the column)."""

    @property
    def limited(self) -> bool:
        """A debug run over the first rows (or queries per task) only, not the whole track."""
        return self.limit is not None

    @property
    def reasoning(self) -> Mapping[str, Any] | None:
        """How the model reasoned (`generation.reasoning` of the scores), None if it did not."""
        generation = self.scores.get("generation")
        found = generation.get("reasoning") if isinstance(generation, Mapping) else None
        return found if isinstance(found, Mapping) else None

    @property
    def truncated_in_reasoning(self) -> int:
        """Answers that never came: the reply ended inside its reasoning trace."""
        count = (self.reasoning or {}).get("truncated_in_reasoning")
        return count if isinstance(count, int) and not isinstance(count, bool) else 0

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
    """An object column: a struct as read, or JSON text decoded; anything else (bad JSON, a
    list, None) is `{}`."""
    value = _object(text)
    return value if isinstance(value, dict) else {}


def count_map(text: Any) -> dict[str, int]:
    """A JSON `{name: count}` column, keeping only integer counts."""
    return {str(k): int(v) for k, v in json_object(text).items() if _is_count(v)}


def summary_record(row: Mapping[str, Any], folder: Path) -> SummaryRecord:
    """A model's summary row (format 1, 2 or 3) as a record; `BadResult` when it cannot be one."""
    missing = [column for column in SUMMARY_COLUMNS if column not in row]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise BadSummary(f"the summary has no column{plural} {', '.join(missing)}")
    cut: list[str] = []
    model, track = text_column(row, "model", cut), text_column(row, "track", cut)
    if not model or not track:
        raise BadSummary(f"the summary names no {'model' if not model else 'track'}")
    typed = format_version(row) >= 3
    scores = _object(row["scores"]) if typed else _json(row["scores"])
    if scores is None and typed:
        scores = {}  # an empty object is stored as a null struct
    if not isinstance(scores, dict):
        raise BadSummary(f"scores is {_json_kind(scores)}, not a JSON object")
    return SummaryRecord(
        model=model,
        track=track,
        n_samples=_count(row, "n_samples"),
        scores=shown_keys(scores, "a score's name", cut),
        status_counts=count_map(row.get("status_counts")),
        outcome_counts=count_map(row.get("outcome_counts")),
        config_hash=text_column(row, "config_hash", cut),
        started_at=text_column(row, "started_at", cut),
        finished_at=text_column(row, "finished_at", cut),
        folder=folder,
        limit=_limit(row),
        cut=tuple(cut),
        stand_ins=stand_ins_of(_object(row.get("stand_ins"))),
    )


def _limit(row: Mapping[str, Any]) -> int | None:
    """The `limit` column: a positive count, or None for a full run (no column, null or -1)."""
    value = row.get("limit")
    if value is None or value == -1:
        return None
    if not _is_count(value) or value < 1:
        raise BadSummary(f"limit {value!r} is not a sample limit")
    return int(value)


_NOT_JSON = object()


def _object(value: Any) -> Any:
    """A nested column as its value: a struct (format 3) is already a dict; JSON text (formats
    1 and 2, or a typed column's fallback) is decoded."""
    return _json(value) if isinstance(value, str) else value


def _json(text: Any) -> Any:
    """A JSON text column decoded; `_NOT_JSON` for text that is not JSON (or no text at all)."""
    if not isinstance(text, str):
        return _NOT_JSON
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _json_kind(value: Any) -> str:
    if value is _NOT_JSON:
        return "not JSON"
    if value is None:
        return "null"
    return {list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(row: Mapping[str, Any], key: str) -> int:
    """A non-negative integer column; missing or null reads as 0."""
    value = row.get(key)
    if value is None:
        return 0
    if not _is_count(value) or value < 0:
        raise BadResult(f"{key} {value!r} is not a count")
    return int(value)


def latest_per_run(records: Iterable[SummaryRecord]) -> list[SummaryRecord]:
    """One record per (model, track): the full run that finished last, or, for a pair with no
    full run, the limited run that finished last.

    A results folder can hold several runs of the same model on the same track (two configs'
    output dirs side by side); the leaderboard shows the newest, as a re-run replaces a result.
    A `--limit` run is a debug run over a few samples: it never replaces a full run, however
    recent, and shows (marked) only where there is nothing better.
    """
    latest: dict[tuple[str, str], SummaryRecord] = {}
    for record in records:
        if not record.model or not record.track:
            continue
        key = (record.model, record.track)
        if key not in latest or _preference(record) >= _preference(latest[key]):
            latest[key] = record
    return sorted(latest.values(), key=lambda r: (r.track, r.model))


def _preference(record: SummaryRecord | BoardRecord) -> tuple[bool, str]:
    """Full runs before limited ones, then the one that finished last."""
    return (not record.limited, record.finished_at)


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
    limit: int | None = None
    """The run's `--limit`, None for a full run or a ratings command."""
    cut: tuple[str, ...] = ()
    """Texts too long to show whole (cut for display), with their lengths."""
    stand_ins: tuple[StandIn, ...] = ()
    """What stood in for a real model or judge in the verdicts it was fitted on."""

    @property
    def limited(self) -> bool:
        return self.limit is not None


def by_model(records: Iterable[SummaryRecord], track: str) -> dict[str, SummaryRecord]:
    """The track's records keyed by model name."""
    return {r.model: r for r in records if r.track == track}


def is_board_row(row: Mapping[str, Any]) -> bool:
    return row.get("kind") == BOARD_KIND


def board_record(row: Mapping[str, Any], folder: Path) -> BoardRecord:
    """A rating-board summary row as a record; `BadResult` when the board does not parse."""
    format_version(row)
    cut: list[str] = []
    track = text_column(row, "track", cut)
    if not track:
        raise BadBoard("the board names no track")
    try:
        raw = _object(row.get("board"))
        if not isinstance(raw, dict):
            raise ValueError(f"the board is {_json_kind(raw)}, not an object")
        board = RatingBoard.from_json(raw)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise BadBoard(
            f"the board of {track!r} does not parse: {type(err).__name__}: {err}"
        ) from None
    return BoardRecord(
        track=track,
        board=shown_board(board, cut),
        source=text_column(row, "source", cut),
        n_rows=_count(row, "n_rows"),
        config_hash=text_column(row, "config_hash", cut),
        started_at=text_column(row, "started_at", cut),
        finished_at=text_column(row, "finished_at", cut),
        folder=folder,
        limit=_limit(row),
        cut=tuple(cut),
        stand_ins=stand_ins_of(_object(row.get("stand_ins"))),
    )


def latest_per_track(records: Iterable[BoardRecord]) -> dict[str, BoardRecord]:
    """One board per track: the one that finished last (a re-rating replaces a board), a
    `--limit` run's board only where no full board is there (as `latest_per_run`)."""
    latest: dict[str, BoardRecord] = {}
    for record in records:
        if record.track not in latest or _preference(record) >= _preference(latest[record.track]):
            latest[record.track] = record
    return dict(sorted(latest.items()))
