"""The overview table: one row per model, each track's headline numbers side by side.

Scores are percentages (0-100) as the papers print them, under the headlines each track
registers, or numbers on their own scale where the headline says so (ProBench's Elo points); a
track with a rating board and no registered headlines shows every model of that one fit, its
rating on the board's own scale in one column (`overview_cells` shows every number, a rating
too, with its 95% interval under it in the same cell, and each track's rank bands). Each model
also shows when it was last run, under which config hash(es), and how many of its items
failed, could not be parsed, or were otherwise flagged, so a low score caused by broken
requests is visible next to the score itself; where a model
reasoned, `Cut off in reasoning` counts its replies that ended inside their reasoning trace
(no answer: often a token limit too low for a thinking model). `Samples` says how
many samples each score stands on and marks a `--limit` run, which shows only where the model
has no full run of the track (`records.latest_per_run`). Below it, the result folders that were
skipped, each with the reason (`skipped_frame`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

import pandas as pd
from pandas.api.types import is_numeric_dtype

from vlmscope.leaderboard.records import BoardRecord, SummaryRecord
from vlmscope.leaderboard.result_store import Problem
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.track_info import headlines_for, ordered_tracks, track_title
from vlmscope.leaderboard.values import MISSING, number_at, percent
from vlmscope.shown_numbers import rating_number
from vlmscope.tracks.registry import spec_for_results
from vlmscope.tracks.spec import Headline

RUN_COLUMNS = ["Samples", "Run date", "Config hash", "Failed", "Unparseable", "Other flags"]
CUT_OFF = "Cut off in reasoning"  # a run column only when some model reasoned
SKIPPED_COLUMNS = ["Folder", "Reason"]


def overview_frame(
    summaries: Sequence[SummaryRecord], boards: Mapping[str, BoardRecord]
) -> pd.DataFrame:
    """One row per model, best first by the first score column.

    A track with a rating board and no registered headlines shows every model of that board
    (its rating, the interval under it in the same cell: `overview_cells`); any other track
    shows its headline numbers from each model's summary (ProBench: its official scores; its
    joint board is on its own page).
    """
    tracks = ordered_tracks({r.track for r in summaries} | set(boards))
    shown = {t: b for t, b in boards.items() if not _registered_headlines(t)}
    models = sorted(
        {r.model for r in summaries} | {m for b in shown.values() for m in b.board.models}
    )
    cells = _score_cells(tracks, shown, summaries)
    rows = []
    for model in models:
        row: dict[str, object] = {"Model": model}
        for column, cell in cells:
            row[column] = cell(model)
        on_boards = [b for b in boards.values() if model in b.board.models]
        row.update(_run_columns([r for r in summaries if r.model == model], on_boards))
        rows.append(row)
    score_columns = [column for column, _ in cells]
    frame = pd.DataFrame(rows, columns=["Model", *score_columns, *_run_column_names(summaries)])
    scores = [c for c in score_columns if is_numeric_dtype(frame[c])]
    if scores:  # by the first score, ties and models without it by the next ones
        frame = frame.sort_values(scores, ascending=False, na_position="last", kind="stable")
    return frame.reset_index(drop=True)


def _score_cells(
    tracks: Sequence[str], shown: Mapping[str, BoardRecord], summaries: Sequence[SummaryRecord]
) -> list[tuple[str, Callable[[str], object]]]:
    """Each score column, in track order, with how it reads a model's cell: the rating on a
    board the overview shows (`shown`), else one headline number of the model's summary."""
    by_run = {(r.model, r.track): r for r in summaries}

    def rating(board: BoardRecord, model: str) -> object:
        found = board.board.models.get(model)
        return rating_number(found.rating) if found else MISSING

    def headline(track: str, h: Headline, model: str) -> object:
        record = by_run.get((model, track))
        return _shown(number_at(record.scores, *h.keys) if record else None, h)

    cells: list[tuple[str, Callable[[str], object]]] = []
    for track in tracks:
        title = track_title(track)
        if track in shown:
            cells.append((f"{title} rating", partial(rating, shown[track])))
        else:
            cells += [
                (f"{title} {h.label}", partial(headline, track, h))
                for h in headlines_for(track, summaries)
            ]
    return cells


def _run_column_names(summaries: Sequence[SummaryRecord]) -> list[str]:
    """`RUN_COLUMNS`, with `CUT_OFF` before the failures when some model reasoned."""
    names = list(RUN_COLUMNS)
    if any(r.reasoning is not None for r in summaries):
        names.insert(names.index("Failed"), CUT_OFF)
    return names


def headline_columns(
    summaries: Sequence[SummaryRecord], boards: Mapping[str, BoardRecord]
) -> dict[str, tuple[str, Headline]]:
    """The overview's headline columns: title -> (track, headline); a board's ratings aside."""
    tracks = ordered_tracks({r.track for r in summaries} | set(boards))
    return {
        f"{track_title(track)} {h.label}": (track, h)
        for track in tracks
        if track not in boards or _registered_headlines(track)
        for h in headlines_for(track, summaries)
    }


def _registered_headlines(track: str) -> bool:
    spec = spec_for_results(track)
    return spec is not None and bool(spec.headlines)


def _shown(value: float | None, headline: Headline) -> float:
    """A headline number as the overview shows it: a percentage, or as it is."""
    if headline.percent:
        return percent(value)
    return MISSING if value is None else round(value, 2)


def _run_columns(runs: Sequence[SummaryRecord], boards: Sequence[BoardRecord]) -> dict[str, object]:
    """When and under which configs the model's results were made (its runs and the boards it
    is rated on), and how many of its own items failed or were flagged."""
    made = [(r.finished_at, r.config_hash) for r in runs] + [
        (b.finished_at, b.config_hash) for b in boards
    ]
    return {
        "Samples": samples_text(runs),
        "Run date": max((finished[:10] for finished, _ in made), default=""),
        "Config hash": ", ".join(sorted({config for _, config in made if config})),
        CUT_OFF: sum(r.truncated_in_reasoning for r in runs),
        "Failed": sum(r.failed for r in runs),
        "Unparseable": sum(r.unparseable for r in runs),
        "Other flags": sum(r.other_flags for r in runs),
    }


def samples_text(runs: Sequence[SummaryRecord]) -> str:
    """How many samples the model's scores stand on: `14`, or one count per track in the order
    of the track columns (`14/10`: a cell that stays on one line however many tracks); a
    `--limit` run is marked (`7 (limit 1)`)."""
    by_track = {r.track: r for r in runs}
    shown = []
    for track in ordered_tracks(by_track):
        record = by_track[track]
        shown.append(f"{record.n_samples}" + (f" (limit {record.limit})" if record.limited else ""))
    return "/".join(shown)


def skipped_frame(problems: Sequence[Problem]) -> pd.DataFrame:
    """The skipped result folders: each folder's path inside the results and why, as text."""
    rows = [[as_text(p.folder), as_text(p.error)] for p in problems]
    return pd.DataFrame(rows, columns=SKIPPED_COLUMNS, dtype=object)
