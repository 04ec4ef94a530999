"""Rating boards a later board of the same track hides, and the models only they rate.

The Space shows one board per track, the one that finished last (`latest_per_track`): a
re-rating replaces a board. But two runs of different models each fit their own board (a board
is one fit, so two cannot be merged), and then the later one hid the earlier one's models
without a word: a model with results on the track had no rating on its page or in the
overview. The page says which models that hides, so a visitor knows they were rated, where,
and that rating the runs together puts them on one board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from vlmscope.leaderboard.records import BoardRecord
from vlmscope.leaderboard.track_info import track_title


@dataclass(frozen=True)
class HiddenBoard:
    """A board not shown: its track, its folder inside the results, the models only it rates."""

    track: str
    folder: str
    models: tuple[str, ...]


def hidden_boards(
    found: Iterable[BoardRecord], shown: Mapping[str, BoardRecord], root: Path
) -> list[HiddenBoard]:
    """Each board in `found` that is not the one `shown` for its track and rates a model the
    shown one does not (a board of the same models is a re-rating, replaced as it should be)."""
    hidden = []
    for record in found:
        current = shown.get(record.track)
        if current is None or current is record:
            continue
        only = tuple(m for m in record.board.models if m not in current.board.models)
        if only:
            hidden.append(HiddenBoard(record.track, _inside(record.folder, root), only))
    return hidden


def hidden_lines(hidden: Iterable[HiddenBoard]) -> list[str]:
    """One plain-text line per hidden board, for the page's note (escaped by the caller)."""
    return [
        f"{track_title(h.track)}: {', '.join(h.models)} (rated on the board in {h.folder})"
        for h in hidden
    ]


def _inside(folder: Path, root: Path) -> str:
    try:
        return folder.relative_to(root).as_posix()
    except ValueError:
        return folder.name
