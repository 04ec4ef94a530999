"""A verdict board's refit, made once per state of its result files.

Comparing two models on a judged track (ProBench, VisionArena-Bench) refits the track's joint
board from its verdict records: the whole board and each top-level category, every bootstrap
round redrawn as the board drew them. That fit is the slow part of the comparison and does not
depend on which models are compared, so it is kept, keyed by the identity of the board folder's
files (path, size and modification time of each). Opening the comparison again, or for another
pair of the same results, reuses it; a board file that is rewritten, added or removed changes
the key, and the next comparison refits. A few states are kept (`KEPT`), the least recently
used dropped first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vlmscope.file_states import FileState, by_path, folder_files
from vlmscope.leaderboard.compare.source import board_details
from vlmscope.leaderboard.load import inside
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.boards.head_to_head import NoForecast, verdict_fit
from vlmscope.ratings.fits.bootstrap import BootstrapResult
from vlmscope.ratings.inputs.verdict_records import VerdictRecord, verdict_record_from_dict

KEPT = 8
FileIdentity = tuple[FileState, ...]


@dataclass(frozen=True)
class BoardFits:
    """The board's verdict records and its refits: the whole board under "" and each
    top-level category by name; `notes` says which categories could not be refitted."""

    records: tuple[VerdictRecord, ...]
    fits: dict[str, BootstrapResult]
    notes: tuple[str, ...]


_kept: OrderedDict[tuple[str, FileIdentity], BoardFits] = OrderedDict()
_lock = threading.Lock()


def file_identity(folder: Path) -> FileIdentity:
    """(path, size, modification time in ns) of every file under `folder`, sorted by path."""
    return tuple(by_path(folder_files(folder)))


def board_fits(store: ResultStore, track: str, board: RatingBoard) -> BoardFits:
    """The track's board refitted (module doc), from the kept fit while its files are unchanged."""
    folder = inside(store.location, store.boards[track].folder)
    key = (str(folder), file_identity(folder))
    with _lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
            return kept
    records = tuple(
        verdict_record_from_dict(r["record"]) for r in board_details(store, track, ["record"])
    )
    if not records:
        raise ValueError("the joint board stores no verdicts to refit")
    fitted = fit_board(records, board)
    with _lock:
        _kept[key] = fitted
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return fitted


def fit_board(records: Sequence[VerdictRecord], board: RatingBoard) -> BoardFits:
    """The whole board's fit and each top-level category's, with a note for each category that
    cannot be redrawn."""
    fits = {"": verdict_fit(records, board.settings)}
    notes = []
    for name, category in sorted(board.categories.items()):
        if " / " in name:
            continue  # a breakdown inside a category: the category itself is shown
        try:
            fits[name] = verdict_fit(records, category.settings, category=name)
        except (NoForecast, ValueError) as error:
            notes.append(f"category {name}: no forecast ({error})")
    return BoardFits(tuple(records), fits, tuple(notes))
