"""Reading what a comparison needs from the results: a few details columns, decoded.

Only the columns asked for are read (a MEGA-Bench details row also holds the response and the
judge's replies, which a comparison of scores never needs), through the same checked reader as
the rest of the Space, so a file outside the results or a damaged shard fails the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from vlmscope.leaderboard.load import read_config_columns
from vlmscope.leaderboard.records import json_object
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.board import RatingBoard

JSON_COLUMNS = ("scores", "meta", "extra", "record")


def model_details(
    store: ResultStore, track: str, model: str, columns: Sequence[str]
) -> list[dict[str, Any]]:
    """The model's details rows on the track, only `columns`, JSON columns decoded."""
    folder = store.summary(track, model).folder
    return _rows(read_config_columns(store.location, folder, "details", columns))


def model_columns(
    store: ResultStore, track: str, model: str, columns: Sequence[str]
) -> dict[str, list[Any]]:
    """`model_details` as columns (no dict per row: a comparison walks tens of thousands)."""
    folder = store.summary(track, model).folder
    found = read_config_columns(store.location, folder, "details", columns)
    return {c: json_objects(v) if c in JSON_COLUMNS else v for c, v in found.items()}


def board_holding(store: ResultStore, track: str, models: Sequence[str], what: str) -> RatingBoard:
    """The track's board (`what` names it in errors), refused when it misses any of `models`:
    a comparison read off a board that lacks a model would compare nothing."""
    record = store.boards.get(track)
    if record is None:
        raise ValueError(f"the results hold no {what} for this track")
    absent = [m for m in models if m not in record.board.models]
    if absent:
        raise ValueError(f"not on the {what}: {', '.join(absent)}")
    return record.board


def board_details(store: ResultStore, track: str, columns: Sequence[str]) -> list[dict[str, Any]]:
    """The rows the track's board was fitted on (battles or verdict records), `columns` only."""
    folder = store.boards[track].folder
    return _rows(read_config_columns(store.location, folder, "details", columns))


def json_objects(texts: Sequence[Any]) -> list[dict[str, Any]]:
    """A JSON column decoded, each cell as `records.json_object` reads it ({} for one that is
    not a JSON object). All cells are parsed in one call when they are all JSON text: tens of
    thousands of small documents parse several times faster as one array."""
    if all(isinstance(t, str) for t in texts):
        try:
            values = json.loads("[" + ",".join(texts) + "]")
        except ValueError:
            values = None
        if isinstance(values, list) and len(values) == len(texts):
            return [v if isinstance(v, dict) else {} for v in values]
    return [json_object(t) for t in texts]


def _rows(found: dict[str, list[Any]]) -> list[dict[str, Any]]:
    decoded = {
        column: json_objects(values) if column in JSON_COLUMNS else values
        for column, values in found.items()
    }
    n = len(next(iter(decoded.values()), []))
    return [{column: values[i] for column, values in decoded.items()} for i in range(n)]
