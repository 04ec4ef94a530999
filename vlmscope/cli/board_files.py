"""Reading a leaderboard to compare from a file: any board vlmscope wrote, or a plain table.

A board comes from
- a board JSON file (what `--out` of `vlmscope ratings ...` and `visionarena leaderboard` write);
- a result folder holding a board (`--result-dir` of those commands, or a run's
  `OUTPUT_DIR/_boards/<track>/`), read through the Space's reader so a corrupt folder fails
  the same way everywhere;
- a leaderboard table (`.csv`, `.jsonl`, or a `.json` array) with a `model` column, the score
  in `rating` (or `score`, `elo`, `arena_score`) and, optionally, both `lower` and `upper`: a
  published leaderboard typed in by hand. A table without intervals separates no pair (its
  bounds are infinite), so confidence agreement and separability read 0 for it.

A view inside a board (a category, the style-controlled twin) is picked by `select_view`.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from vlmscope.ratings.boards.board import ModelRating, RatingBoard, with_ci_ranks

SCORE_COLUMNS = ("rating", "score", "elo", "arena_score")
TABLE_SUFFIXES = (".csv", ".jsonl", ".json")


class BoardFileError(ValueError):
    """A board file that cannot be read; the message names the file and, for a table, the line
    and the field."""


def read_board(path: Path) -> RatingBoard:
    """The board in `path` (a folder, a board JSON or a leaderboard table)."""
    if path.is_dir():
        return _board_from_folder(path)
    if not path.is_file():
        raise BoardFileError(f"{path}: no such file or folder")
    if path.suffix == ".json":
        raw = _json_document(path)
        if isinstance(raw, Mapping) and "models" in raw:
            return _board_from_json(path, raw)
        if isinstance(raw, list):
            return _board_from_table(path, enumerate(raw, start=1))
        raise BoardFileError(f"{path}: neither a board (no `models`) nor a list of table rows")
    if path.suffix == ".jsonl":
        return _board_from_table(path, _jsonl_rows(path))
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            # line 1 is the header
            return _board_from_table(path, enumerate(csv.DictReader(handle), start=2))
    raise BoardFileError(f"{path}: expected a folder or one of {', '.join(TABLE_SUFFIXES)}")


def select_view(
    board: RatingBoard, path: Path, *, category: str | None, style_control: bool
) -> RatingBoard:
    """The board's category `category` (None = the board itself), style-controlled or not;
    an error naming what the board has when that view was not computed."""
    view = board.view(category, style_control=style_control)
    if view is not None:
        return view
    if category is not None and category not in board.categories:
        have = ", ".join(board.categories) or "none"
        skipped = board.skipped_categories.get(category)
        why = f" (skipped: {skipped})" if skipped else ""
        raise BoardFileError(f"{path}: no category {category!r}{why}; categories: {have}")
    raise BoardFileError(f"{path}: {category or 'the full board'} has no style-controlled fit")


def _board_from_folder(folder: Path) -> RatingBoard:
    from vlmscope.leaderboard.load import ResultsLocation
    from vlmscope.leaderboard.records import BoardRecord
    from vlmscope.leaderboard.result_store import UNREADABLE, read_result_folder

    try:
        found = read_result_folder(ResultsLocation.local(folder), folder.resolve())
    except UNREADABLE as error:
        raise BoardFileError(f"{folder}: {error}") from None
    boards = [record.board for record in found if isinstance(record, BoardRecord)]
    if len(boards) != 1:
        raise BoardFileError(f"{folder}: holds {len(boards)} boards, expected one")
    return boards[0]


def _json_document(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise BoardFileError(f"{path}: line {error.lineno}: not JSON ({error.msg})") from None


def _board_from_json(path: Path, raw: Mapping[str, Any]) -> RatingBoard:
    try:
        return RatingBoard.from_json(raw)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise BoardFileError(
            f"{path}: not a rating board: {type(error).__name__}: {error}"
        ) from None


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield line_number, json.loads(line)
            except json.JSONDecodeError as error:
                raise BoardFileError(
                    f"{path}: line {line_number}: not JSON ({error.msg})"
                ) from None


def _board_from_table(path: Path, rows: Iterator[tuple[int, Any]]) -> RatingBoard:
    models: dict[str, ModelRating] = {}
    for line, row in rows:
        where = f"{path}: line {line}"
        if not isinstance(row, Mapping):
            raise BoardFileError(f"{where}: a row must be an object, got {type(row).__name__}")
        name = row.get("model")
        if "model" not in row:
            raise BoardFileError(
                f"{where}: field `model`: absent; a table needs a `model` column "
                f"(this row has {', '.join(f'`{key}`' for key in row) or 'none'})"
            )
        if not isinstance(name, str) or not name.strip():
            raise BoardFileError(f"{where}: field `model`: a non-empty name is required")
        if name in models:
            raise BoardFileError(f"{where}: field `model`: {name!r} is listed twice")
        models[name] = _table_rating(row, where)
    if not models:
        raise BoardFileError(f"{path}: the table has no rows")
    ordered = dict(sorted(models.items(), key=lambda item: -item[1].rating))
    return RatingBoard(models=with_ci_ranks(ordered))


def _table_rating(row: Mapping[str, Any], where: str) -> ModelRating:
    column = next((c for c in SCORE_COLUMNS if row.get(c) not in (None, "")), None)
    if column is None:
        raise BoardFileError(f"{where}: no score: give one of {', '.join(SCORE_COLUMNS)}")
    rating = _number(row[column], where, column)
    has_lower, has_upper = row.get("lower") not in (None, ""), row.get("upper") not in (None, "")
    if has_lower != has_upper:
        missing = "upper" if has_lower else "lower"
        raise BoardFileError(f"{where}: field `{missing}`: give both bounds or neither")
    if not has_lower:
        return ModelRating(rating=rating, lower=-math.inf, upper=math.inf)
    lower, upper = _number(row["lower"], where, "lower"), _number(row["upper"], where, "upper")
    if not lower <= rating <= upper:
        raise BoardFileError(f"{where}: field `{column}`: {rating} lies outside [{lower}, {upper}]")
    return ModelRating(rating=rating, lower=lower, upper=upper)


def _number(value: Any, where: str, field: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BoardFileError(f"{where}: field `{field}`: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise BoardFileError(f"{where}: field `{field}`: {value!r} is not a finite number")
    return number
