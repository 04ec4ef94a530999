"""Writing a rating board from the command line: JSON, the result dataset's hash, one line to print.

Kept apart from the commands so every command that produces a board says and hashes it alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vlmscope.atomic_files import write_text_atomic
from vlmscope.ratings.boards.board import RatingBoard


def config_hash(request: Mapping[str, Any], input_bytes: bytes) -> str:
    """16 hex digits of sha256 over the settings JSON and the input file: the same file rated
    the same way has the same hash, whatever the file is called or where it lies."""
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode())
    digest.update(input_bytes)
    return digest.hexdigest()[:16]


def write_board_json(path: Path, board: RatingBoard) -> None:
    write_text_atomic(path, json.dumps(board.to_json(), indent=2) + "\n")
    print(f"wrote {path}: the board as JSON")


def describe(board: RatingBoard) -> str:
    """One line about a board: the top models, unparseable count, companions, skipped rows."""
    names = list(board.models)
    shown = ", ".join(f"{name} {board.models[name].rating:.1f}" for name in names[:5])
    more = ", ..." if len(names) > 5 else ""
    parts = [f"{len(names)} models ({shown}{more})", f"unparseable {board.unparseable}"]
    if board.style_control is not None:
        parts.append("style-controlled companion")
    if board.categories:
        parts.append(f"categories {', '.join(board.categories)}")
    skipped = board.skipped_categories
    if skipped:
        parts.append(f"skipped {', '.join(f'{k} ({v})' for k, v in skipped.items())}")
    bad_rows = board.skipped_rows
    if bad_rows:
        counts = ", ".join(f"{reason} {count}" for reason, count in bad_rows.items())
        parts.append(f"skipped {sum(bad_rows.values())} bad rows ({counts})")
    return "; ".join(parts)


def board_notes(board: RatingBoard) -> list[str]:
    """The notes a fit recorded (`settings.notes`: e.g. arena-hard v2 answers whose metadata
    keys came out of the official order), of the board, its style-controlled companion and its
    categories', each once, in that order."""
    boards = [board, *board.categories.values()]
    fits = [fit for b in boards for fit in (b, b.style_control) if fit is not None]
    notes = [str(note) for fit in fits for note in fit.settings.extra.get("notes") or ()]
    return list(dict.fromkeys(notes))


def now_iso() -> str:
    """UTC now to the second, the timestamp format of the result datasets."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
