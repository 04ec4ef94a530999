"""The results a Space serves: every summary and rating board read at start, details on demand.

Summaries are small and every page needs them; details can be large (one row per sample) and
only the sample browser reads them, so they are loaded per (track, model) on demand and a few
are kept. A rating-board folder (one fit over every model of a track) gives the track's board;
the newest per track is kept. A folder that cannot be read (a board that does not parse) is
skipped and listed in `problems`, so one bad upload never takes the Space down. The page names
a run by (track, model) only; the folder comes from what was found at start, so no value sent
from the browser is ever turned into a path.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from vlmscope.leaderboard.load import ResultsLocation, find_result_folders, read_config_rows
from vlmscope.leaderboard.records import (
    BadBoard,
    BoardRecord,
    SummaryRecord,
    board_record,
    is_board_row,
    latest_per_run,
    latest_per_track,
    summary_record,
)
from vlmscope.leaderboard.track_info import ordered_tracks

DETAILS_KEPT = 4


class UnknownRun(KeyError):
    """A (track, model) pair that is not among the loaded results."""


@dataclass(frozen=True)
class Problem:
    """A result folder that was skipped: its path inside the results location, and why."""

    folder: str
    error: str


class ResultStore:
    def __init__(self, location: ResultsLocation) -> None:
        self.location = location
        self.problems: list[Problem] = []
        records: list[SummaryRecord] = []
        boards: list[BoardRecord] = []
        for folder in find_result_folders(location):
            for row in read_config_rows(location, folder, "summary"):
                if not is_board_row(row):
                    records.append(summary_record(row, folder))
                    continue
                try:
                    boards.append(board_record(row, folder))
                except BadBoard as err:
                    name = folder.relative_to(location.root).as_posix()
                    self.problems.append(Problem(name, str(err)))
        self.summaries: list[SummaryRecord] = latest_per_run(records)
        self.boards: dict[str, BoardRecord] = latest_per_track(boards)
        self._runs = {(r.track, r.model): r for r in self.summaries}
        self._details: OrderedDict[tuple[str, str], list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def tracks(self) -> list[str]:
        """Every track with a per-model result or a board, registered tracks first."""
        return ordered_tracks({r.track for r in self.summaries} | set(self.boards))

    def sample_tracks(self) -> list[str]:
        """The tracks with per-model details (a board's battles are not samples)."""
        return ordered_tracks({r.track for r in self.summaries})

    def models(self, track: str) -> list[str]:
        return sorted(r.model for r in self.summaries if r.track == track)

    def summary(self, track: str, model: str) -> SummaryRecord:
        try:
            return self._runs[(track, model)]
        except KeyError:
            raise UnknownRun(f"no results for model {model!r} on track {track!r}") from None

    def details(self, track: str, model: str) -> list[dict[str, Any]]:
        """The details rows of one run (raises `UnknownRun` for a pair not loaded)."""
        key = (track, model)
        record = self.summary(track, model)
        with self._lock:
            if key in self._details:
                self._details.move_to_end(key)
                return self._details[key]
        rows = read_config_rows(self.location, record.folder, "details")
        with self._lock:
            self._details[key] = rows
            while len(self._details) > DETAILS_KEPT:
                self._details.popitem(last=False)
        return rows
