"""The results a Space serves: every summary and rating board read at start, details on demand.

Summaries are small and every page needs them; details can be large (one row per sample) and
only the sample browser reads them, so they are loaded per (track, model) on demand and a few
are kept. A rating-board folder (one fit over every model of a track) gives the track's board;
the newest per track is kept.

Of several runs of one model on one track, the newest full run is shown, and a `--limit` run
only where there is no full run (`records.latest_per_run`); the limited runs left out for a full
one are listed in `set_aside`.

A folder that cannot be shown is skipped and listed in `problems` with a short reason, so one
bad upload never takes the Space down: a summary or details file that does not read as parquet
(details are checked by their footer at start, without reading their rows), a summary with no
rows or with a row `records` refuses (wrong columns, scores that are not a JSON object, a format
newer than this code, a board that does not parse), details with no summary, a file that leads
outside the results location, and, as a last resort, any other error reading the folder. A
folder whose texts are too long to show whole (a name of megabytes) is shown with them cut and
listed in `suspicious`; a results location that does not exist is said (`missing`), not shown
as an empty one.
Details that pass the start check but fail when the sample browser reads them raise
`UnreadableDetails` for that run only.

The page names a run by (track, model) only; the folder comes from what was found at start, so
no value sent from the browser is ever turned into a path.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.leaderboard.load import (
    OutsideResults,
    ResultsLocation,
    UnreadableConfig,
    check_config_files,
    find_result_folders,
    has_config,
    read_config_rows,
)
from vlmscope.leaderboard.records import (
    BadResult,
    BoardRecord,
    SummaryRecord,
    board_record,
    is_board_row,
    latest_per_run,
    latest_per_track,
    summary_record,
)
from vlmscope.leaderboard.replaced_boards import HiddenBoard, hidden_boards
from vlmscope.leaderboard.track_info import ordered_tracks

DETAILS_KEPT = 4
PROBLEM_CHARS = 300
UNREADABLE = (UnreadableConfig, OutsideResults, BadResult)
"""What makes a folder unreadable (each message is short and names no server path)."""

log = logging.getLogger(__name__)


class UnknownRun(KeyError):
    """A (track, model) pair that is not among the loaded results."""


class UnreadableDetails(ValueError):
    """A loaded run whose details do not read; the message says why, for the sample browser."""


@dataclass(frozen=True)
class Problem:
    """A result folder that was skipped: its path inside the results location, and why."""

    folder: str
    error: str


def read_result_folder(
    location: ResultsLocation, folder: Path
) -> list[SummaryRecord | BoardRecord]:
    """The records of one result folder, or one of `UNREADABLE` saying why it cannot be shown."""
    if not has_config(folder, "summary"):
        raise BadResult("details but no summary config")
    rows = read_config_rows(location, folder, "summary")
    if not rows:
        raise BadResult("the summary config has no rows")
    found = [
        board_record(r, folder) if is_board_row(r) else summary_record(r, folder) for r in rows
    ]
    check_config_files(location, folder, "details")
    return found


class ResultStore:
    def __init__(self, location: ResultsLocation) -> None:
        self.location = location
        self.problems: list[Problem] = []
        self.suspicious: list[Problem] = []
        """Folders shown with texts cut for display, each with what was cut."""
        self.missing = not location.root.is_dir()
        """The results location does not exist (nothing to show, and the page says why)."""
        if self.missing:
            log.warning("the results location %s does not exist: nothing to show", location.root)
        records: list[SummaryRecord] = []
        boards: list[BoardRecord] = []
        for folder in find_result_folders(location):
            try:
                found = read_result_folder(location, folder)
            except UNREADABLE as err:
                self._skip(folder, str(err))
                continue
            except Exception as err:  # noqa: BLE001 - a surprise in one folder is that folder's
                log.exception("unexpected error reading %s", folder)
                self._skip(folder, f"unexpected {type(err).__name__}: {err}")
                continue
            records += [r for r in found if isinstance(r, SummaryRecord)]
            boards += [r for r in found if isinstance(r, BoardRecord)]
            cut = [what for r in found for what in r.cut]
            if cut:
                self._suspect(folder, cut)
        if not self.missing and not records and not boards and not self.problems:
            log.warning(
                "no result datasets under %s: the leaderboard is empty (`vlmscope run --config "
                "...` writes them; give the folder it wrote)",
                location.root,
            )
        self.summaries: list[SummaryRecord] = latest_per_run(records)
        self.boards: dict[str, BoardRecord] = latest_per_track(boards)
        self.hidden_boards: list[HiddenBoard] = hidden_boards(boards, self.boards, location.root)
        """Earlier boards that a later one of the same track hides, and the models only they rate."""
        self._runs = {(r.track, r.model): r for r in self.summaries}
        full = {key for key, r in self._runs.items() if not r.limited}
        self.set_aside: list[SummaryRecord] = [
            r for r in records if r.limited and (r.track, r.model) in full
        ]
        """`--limit` runs not shown because the same model has a full run of the track."""
        # the rows of a run's details, or why they do not read
        self._details: OrderedDict[tuple[str, str], list[dict[str, Any]] | str] = OrderedDict()
        self._lock = threading.Lock()

    def _skip(self, folder: Path, error: str) -> None:
        """List a folder as skipped, by its path inside the results and a short reason."""
        name = folder.relative_to(self.location.root).as_posix()
        for server_path in {str(self.location.root), str(self.location.boundary)}:
            error = error.replace(server_path, "…")
        if len(error) > PROBLEM_CHARS:
            error = error[: PROBLEM_CHARS - 1] + "…"
        log.warning("skipped result folder %s: %s", name, error)
        self.problems.append(Problem(name, error))

    def _suspect(self, folder: Path, cut: list[str]) -> None:
        name = folder.relative_to(self.location.root).as_posix()
        shown = ", ".join(dict.fromkeys(cut))
        if len(shown) > PROBLEM_CHARS:
            shown = shown[: PROBLEM_CHARS - 1] + "…"
        log.warning("result folder %s holds texts too long to show: %s", name, shown)
        self.suspicious.append(Problem(name, f"shown with texts cut: {shown}"))

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
        """The details rows of one run: `UnknownRun` for a pair not loaded, `UnreadableDetails`
        when its files do not read (the failure is kept like rows are, not retried per call)."""
        key = (track, model)
        record = self.summary(track, model)
        with self._lock:
            kept = self._details.get(key)
            if kept is not None:
                self._details.move_to_end(key)
        if kept is None:
            kept = self._read_details(record)
            with self._lock:
                self._details[key] = kept
                while len(self._details) > DETAILS_KEPT:
                    self._details.popitem(last=False)
        if isinstance(kept, str):
            raise UnreadableDetails(kept)
        return kept

    def _read_details(self, record: SummaryRecord) -> list[dict[str, Any]] | str:
        try:
            return read_config_rows(self.location, record.folder, "details")
        except (UnreadableConfig, OutsideResults) as err:
            log.warning("details of %s on %s do not read: %s", record.model, record.track, err)
            return f"the samples of {record.model} on {record.track} cannot be shown: {err}"
