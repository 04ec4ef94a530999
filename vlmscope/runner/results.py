"""Result datasets: `details` (one row per sample) and `summary` (one row per model and track).

Both are written as one Hub-style folder per (model, track), so `load_dataset(folder, "details")`
opens them and the leaderboard reads nothing else. A track's joint rating board (one fit over
every model of a run, or a board of human battles) is a result dataset of its own, under
`OUTPUT_DIR/_boards/<track>/`: `summary` holds the board, `details` the battles it was fitted on. Per-sample scores and evidence vary by track
(MEGA-Bench field names differ per task), so in `details` they are stored as JSON text columns
rather than structs whose schema would change from row to row. A summary is one row, so its
nested columns are typed (`vlmscope.typed_columns`): `load_dataset(folder, "summary")` gives
numbers as numbers and objects as structs.
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from vlmscope.config import folder_name
from vlmscope.hub_export import export_folder
from vlmscope.input_errors import InputError
from vlmscope.judges.call_log import Call
from vlmscope.messages import Response
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.runner import turn_details
from vlmscope.runner.result_card import board_card, track_card
from vlmscope.stand_ins import StandIn
from vlmscope.tracks.base import Sample, Scored
from vlmscope.typed_columns import typed_table

FORMAT_VERSION = 3
"""Version of the summary rows' shape. 1: the first release (no `format_version` column, no
boards); 2: `format_version`, and rating boards as datasets of their own. A model's summary got
its `limit` column (the run's `--limit`, null for a full run) within format 2: readers take a
summary without it for a full run. Details got their reasoning columns within format 2 too:
readers take details without them as answers without a trace. Details got `calls` (every model
and judge call behind the row, with its tokens and latency) within format 2 too: readers take
details without it as rows whose calls were not recorded. 3: the summary's nested columns
(`scores`, the counts, `package_versions`, a board's `board`) are typed (numbers as numbers,
objects as structs, `vlmscope.typed_columns`) instead of JSON text. Details got `earlier_turns`
within format 3 (`vlmscope.runner.turn_details`): readers take details without it as rows whose
earlier turns were not recorded."""
BOARDS_DIR = "_boards"  # no model's folder can start with "_" (see `folder_name`)
BOARD_KIND = "rating_board"
_VERSIONED = ("vlmscope", "torch", "transformers", "datasets", "accelerate", "evaluate", "numpy")


@dataclass
class TrackResult:
    """Everything the writer needs for one (model, track)."""

    model: str
    track: str
    samples: Sequence[Sample]
    responses: Sequence[Response]
    request_hashes: Sequence[str]
    scored: Sequence[Scored]
    summary: dict[str, Any]
    config_hash: str
    started_at: str
    finished_at: str
    run_counts: dict[str, Any] = field(default_factory=dict)
    calls: Sequence[Sequence[Call]] = ()
    """Per sample, every call behind it (its turns' answers, its judge calls); () when the
    writer was given none."""
    limit: int | None = None
    """The run's `--limit` (`RunConfig.limit`), None for a full run: a limited run is a debug
    run, which the leaderboard marks and never shows in place of a full one."""
    stand_ins: Sequence[StandIn] = ()
    """What stood in for a real model, judge or grader (`vlmscope.stand_ins`), named in the
    summary and the card."""
    note: str = ""
    """The run config's `note:`, kept in the card."""
    turns: Sequence[Sequence[Response]] = ()
    """Per sample, the answers of all its turns in order, the last being `responses`' (multi-turn
    tracks: `vlmscope.runner.turn_details`); () when the writer was given none."""


def result_dir(output_dir: str | Path, model: str, track: str, limit: int | None = None) -> Path:
    """`<model>/<track>`, or `<model>/<track>-limit<N>` for a `--limit N` run: a debug run never
    replaces a full run's result (the Space then shows the full one)."""
    return Path(output_dir) / folder_name(model) / limited_name(track, limit)


def limited_name(name: str, limit: int | None) -> str:
    return name if limit is None else f"{name}-limit{limit}"


def details_rows(result: TrackResult) -> list[dict[str, Any]]:
    rows = []
    calls = result.calls or [()] * len(result.samples)
    turns = result.turns or [()] * len(result.samples)
    for sample, req_hash, response, scored, made, answered in zip(
        result.samples, result.request_hashes, result.responses, result.scored, calls, turns,
        strict=True,
    ):  # fmt: skip
        rows.append(
            {
                "model": result.model,
                "track": result.track,
                "sample_id": sample.id,
                "request_hash": req_hash,
                "response": response.text,
                "status": response.status.value,
                "error": response.error or "",
                "parsed": scored.parsed if scored.parsed is not None else "",
                "scores": json.dumps(dict(scored.scores), sort_keys=True),
                "outcome": scored.outcome,
                "extra": json.dumps(dict(scored.extra), ensure_ascii=False, default=str),
                "meta": json.dumps(dict(sample.meta), ensure_ascii=False, default=str),
                "prompt_tokens": response.usage.prompt_tokens,
                "completion_tokens": response.usage.completion_tokens,
                "latency_s": response.latency_s,
                "attempts": response.attempts,
                "image_notes": list(response.image_notes),
                "reasoning": response.reasoning,
                "reasoning_tokens": response.usage.reasoning_tokens,
                "reasoning_tokens_estimated": response.usage.reasoning_tokens_estimated,
                "truncated_in_reasoning": response.truncated_in_reasoning,
                "calls": [c.to_json() for c in made],
                turn_details.COLUMN: turn_details.earlier_turns(answered),
            }
        )
    return rows


def summary_row(result: TrackResult) -> dict[str, Any]:
    statuses = Counter(r.status.value for r in result.responses)
    outcomes = Counter(s.outcome for s in result.scored)
    return {
        "format_version": FORMAT_VERSION,
        "model": result.model,
        "track": result.track,
        "n_samples": len(result.samples),
        "limit": result.limit,
        "scores": result.summary,
        "status_counts": dict(sorted(statuses.items())),
        "outcome_counts": dict(sorted(outcomes.items())),
        "run_counts": dict(sorted(result.run_counts.items())),
        "config_hash": result.config_hash,
        "package_versions": dict(sorted(package_versions().items())),
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "stand_ins": [s.to_json() for s in result.stand_ins],
    }


class ResultConflict(RuntimeError, InputError):
    """A result folder that holds another model's results (its name maps to the same folder)."""


def owner_of(folder: Path) -> str | None:
    """The model whose summary a result folder holds, None when it holds none (or no model)."""
    files = sorted((folder / "summary").glob("test-*.parquet"))
    if not files:
        return None
    try:
        models = pq.read_table(files[0], columns=["model"]).column("model").to_pylist()
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return None
    return str(models[0]) if models and models[0] else None


def check_owner(folder: Path, model: str) -> None:
    """Refuse to write `model`'s results over another model's (say `org/m` after `org_m`)."""
    owner = owner_of(folder)
    if owner is not None and owner != model:
        raise ResultConflict(
            f"{folder} holds the results of model {owner!r}, whose name maps to the same folder "
            f"as {model!r}; rename one of them or use another output directory"
        )


def _no_files(folder: Path) -> None:
    """A track that writes no files of its own."""


def write_result(
    output_dir: str | Path,
    result: TrackResult,
    write_files: Callable[[Path], None] = _no_files,
) -> Path:
    """The (model, track) result folder, replaced whole: the datasets and, through
    `write_files`, the track's own files (nothing from an earlier run stays)."""
    folder = result_dir(output_dir, result.model, result.track, result.limit)
    check_owner(folder, result.model)
    rows = details_rows(result)
    # from_dict, not from_list: a track with no rows still gets its (empty) details
    details = datasets.Dataset.from_dict(
        {name: [row[name] for row in rows] for name in _DETAILS_FEATURES},
        features=_DETAILS_FEATURES,
    )
    summary = datasets.Dataset(typed_table([summary_row(result)], _SUMMARY_FIXED))
    export_folder(
        folder,
        {"details": details, "summary": summary},
        title=f"vlmscope results: {result.model} on {result.track}",
        description=track_card(result.track, result.summary, result.stand_ins, result.note),
        default="summary",
        extra_files=write_files,  # always given: nothing of an old run is kept
    )
    return folder


@dataclass
class BoardResult:
    """Everything the writer needs for one track's joint board."""

    track: str
    board: RatingBoard
    details: Sequence[Mapping[str, Any]]
    """One JSON-able row per battle or verdict the board was fitted on."""
    source: str
    """What produced it: `run` or the ratings command with its input file's name."""
    config_hash: str
    started_at: str
    finished_at: str
    limit: int | None = None
    """The run's `--limit`, None for a full run or a ratings command."""
    stand_ins: Sequence[StandIn] = ()
    """What stood in for a real model or judge in the verdicts the board was fitted on."""
    note: str = ""
    """The run config's `note:`, kept in the card."""


def board_dir(output_dir: str | Path, track: str, limit: int | None = None) -> Path:
    """`boards/<track>`, or `boards/<track>-limit<N>` for a `--limit N` run's joint board."""
    return Path(output_dir) / BOARDS_DIR / folder_name(limited_name(track, limit))


def write_board_result(folder: str | Path, result: BoardResult) -> Path:
    """The board as a result dataset: `summary` (one row, the board as a struct) + `details`."""
    summary_rows = [
        {
            "format_version": FORMAT_VERSION,
            "kind": BOARD_KIND,
            "track": result.track,
            "board": result.board.to_json(),
            "n_models": len(result.board.models),
            "n_rows": len(result.details),
            "source": result.source,
            "config_hash": result.config_hash,
            "package_versions": dict(sorted(package_versions().items())),
            "started_at": result.started_at,
            "finished_at": result.finished_at,
            "limit": result.limit,
            "stand_ins": [s.to_json() for s in result.stand_ins],
        }
    ]
    detail_rows = [
        {
            "model_a": str(row.get("model_a") or ""),
            "model_b": str(row.get("model_b") or ""),
            "winner": str(row.get("winner") or ""),
            "record": json.dumps(dict(row), ensure_ascii=False, default=str),
        }
        for row in result.details
    ]
    export_folder(
        folder,
        {
            "summary": datasets.Dataset(typed_table(summary_rows, _BOARD_SUMMARY_FIXED)),
            # from_dict, not from_list: a board fitted on no rows still gets its (empty) details
            "details": datasets.Dataset.from_dict(
                {name: [row[name] for row in detail_rows] for name in _BOARD_DETAILS_FEATURES},
                features=_BOARD_DETAILS_FEATURES,
            ),
        },
        title=f"vlmscope rating board: {result.track}",
        description=board_card(result.track, result.stand_ins, result.note),
        default="summary",
    )
    return Path(folder)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


_S = datasets.Value("string")
_I = datasets.Value("int64")
_DETAILS_FEATURES = datasets.Features(
    {
        "model": _S,
        "track": _S,
        "sample_id": _S,
        "request_hash": _S,
        "response": _S,
        "status": _S,
        "error": _S,
        "parsed": _S,
        "scores": _S,
        "outcome": _S,
        "extra": _S,
        "meta": _S,
        "prompt_tokens": _I,
        "completion_tokens": _I,
        "latency_s": datasets.Value("float64"),
        "attempts": _I,
        "image_notes": datasets.List(_S),
        # the model's reasoning trace, kept apart from `response` (the answer that was scored)
        "reasoning": _S,
        "reasoning_tokens": _I,
        "reasoning_tokens_estimated": datasets.Value("bool"),
        "truncated_in_reasoning": datasets.Value("bool"),
        # every model and judge call behind the row (`vlmscope.judges.call_log.Call`)
        "calls": datasets.List(
            {
                "phase": _S,
                "model": _S,
                "cached": datasets.Value("bool"),
                "ok": datasets.Value("bool"),
                "prompt_tokens": _I,
                "completion_tokens": _I,
                "reasoning_tokens": _I,
                "latency_s": datasets.Value("float64"),
                "request": _S,
                "attempt": _I,
                "repeat": _I,
                "panel": _S,
                "verdict": _S,
                "panel_verdict": _S,
            }
        ),
        # the answers of a multi-turn sample's earlier turns, each with its trace
        turn_details.COLUMN: turn_details.FEATURE,
    }
)
_SUMMARY_FIXED = {
    "format_version": pa.int64(),
    "model": pa.string(),
    "track": pa.string(),
    "n_samples": pa.int64(),
    "limit": pa.int64(),  # null: a full run
    "config_hash": pa.string(),
    "started_at": pa.string(),
    "finished_at": pa.string(),
}
"""The summary's flat columns; the others (`scores`, the counts, `package_versions`) are typed
from their values (`typed_table`), so each track's own fields keep their types."""
_BOARD_SUMMARY_FIXED = {
    "format_version": pa.int64(),
    "kind": pa.string(),
    "track": pa.string(),
    "n_models": pa.int64(),
    "n_rows": pa.int64(),
    "source": pa.string(),
    "config_hash": pa.string(),
    "started_at": pa.string(),
    "finished_at": pa.string(),
    "limit": pa.int64(),  # null: a full run (a board written before this column reads as one)
}
_BOARD_DETAILS_FEATURES = datasets.Features(
    {"model_a": _S, "model_b": _S, "winner": _S, "record": _S}
)
