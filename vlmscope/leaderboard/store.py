"""The results a Space serves: every summary read at start, details read when first browsed.

Summaries are small and every page needs them; details can be large (one row per sample) and
only the sample browser reads them, so they are loaded per (track, model) on demand and a few
are kept. The page names a run by (track, model) only; the folder comes from what was found at
start, so no value sent from the browser is ever turned into a path.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from vlmscope.leaderboard.load import ResultsLocation, find_result_folders, read_config_rows
from vlmscope.leaderboard.records import SummaryRecord, latest_per_run, summary_record

DETAILS_KEPT = 4


class UnknownRun(KeyError):
    """A (track, model) pair that is not among the loaded results."""


class ResultStore:
    def __init__(self, location: ResultsLocation) -> None:
        self.location = location
        records = [
            summary_record(row, folder)
            for folder in find_result_folders(location)
            for row in read_config_rows(location, folder, "summary")
        ]
        self.summaries: list[SummaryRecord] = latest_per_run(records)
        self._runs = {(r.track, r.model): r for r in self.summaries}
        self._details: OrderedDict[tuple[str, str], list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def tracks(self) -> list[str]:
        return sorted({r.track for r in self.summaries})

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
