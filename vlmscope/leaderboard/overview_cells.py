"""What each overview cell shows: every number with its 95% interval or marked without one, and
each track's rank bands.

The overview frame (`overview.overview_frame`) holds the numbers, so the table sorts by them;
this gives each cell the text shown in its place (Gradio's display value): a headline number
with how far its interval reaches (`85.71` over `+3.1 / -4.8`, in the number's own units), or
with `(no CI)`; a board's rating the same way, with the interval the board's own page shows
(`+36.4 / -19.6`, `rating_view.ci_text`), so every track's interval sits under its number in one
cell instead of a column of its own. The track's first headline with an interval also shows the
model's rank band (`rank 1`: one plus the number of models whose whole interval lies above), as
a board's rating shows the board's own rank, so statistically tied models share a rank. The
notes say, per column and reason, which models' numbers have no interval. Counts, dates and
config hashes are shown as they are: counts are exact, not estimates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from vlmscope.leaderboard.headline_intervals import (
    NO_CI,
    Bounds,
    headline_bounds,
    rank_bands,
    reach_text,
)
from vlmscope.leaderboard.overview import headline_columns
from vlmscope.leaderboard.rating_view import ci_text
from vlmscope.leaderboard.records import BoardRecord, SummaryRecord
from vlmscope.leaderboard.track_info import track_title
from vlmscope.leaderboard.values import is_number
from vlmscope.tracks.spec import Headline


@dataclass(frozen=True)
class OverviewCells:
    display: list[list[str]]
    """One text per cell of the frame, row by row."""
    no_interval: list[str]
    """`<column>: <models> (<reason>)`, one line per column and reason."""
    bands: dict[str, dict[str, int]]
    """Column -> model -> rank band, for the column that shows each track's bands."""


def overview_cells(
    frame: pd.DataFrame, summaries: Sequence[SummaryRecord], boards: Mapping[str, BoardRecord]
) -> OverviewCells:
    """The display text of every cell of `frame`, the rank bands shown, and the reasons for
    numbers shown without an interval (module doc)."""
    heads = headline_columns(summaries, boards)
    by_run = {(r.model, r.track): r for r in summaries}
    bands = _shown_bands(frame, heads, by_run, boards)
    intervals = _Intervals(heads, by_run, _board_reaches(boards))
    display: list[list[str]] = []
    missing: dict[tuple[str, str], list[str]] = {}
    for _, row in frame.iterrows():
        model = str(row["Model"])
        cells = []
        for column in frame.columns:
            text, why = _cell_text(row[column], column, model, intervals, bands)
            if why is not None:
                missing.setdefault((column, why), []).append(model)
            cells.append(text)
        display.append(cells)
    notes = [f"{column}: {', '.join(ms)} ({why})" for (column, why), ms in missing.items()]
    return OverviewCells(display=display, no_interval=notes, bands=bands)


def _shown_bands(
    frame: pd.DataFrame,
    heads: Mapping[str, tuple[str, Headline]],
    by_run: Mapping[tuple[str, str], SummaryRecord],
    boards: Mapping[str, BoardRecord],
) -> dict[str, dict[str, int]]:
    """Column -> model -> rank band, for each column that shows bands: a track's first
    headline with an interval, ranked among the models of `frame` whose number has one (a
    model without one is in no band, rather than ranked as if its number were exact), and
    each board's rating column the frame shows, with the board's own ranks."""
    models = [str(m) for m in frame["Model"]] if "Model" in frame else []
    bands: dict[str, dict[str, int]] = {}
    for column in _band_columns(heads):
        track, headline = heads[column]
        bounds = {
            m: b
            for m in models
            if isinstance(b := headline_bounds(by_run.get((m, track)), headline), Bounds)
        }
        bands[column] = rank_bands(bounds)
    bands.update({c: b for c, b in _board_bands(boards).items() if c in frame.columns})
    return bands


@dataclass(frozen=True)
class _Intervals:
    """Where the interval under a cell's number comes from: a headline's from the model's run
    summary (which may instead say why it has none), a board's rating from the board."""

    heads: Mapping[str, tuple[str, Headline]]
    """Headline column -> (track, headline)."""
    by_run: Mapping[tuple[str, str], SummaryRecord]
    """(model, track) -> that run's summary."""
    reaches: Mapping[str, Mapping[str, str]]
    """Rating column -> model -> the reach its board's page shows."""

    def under(self, column: str, model: str, value: object) -> tuple[str | None, str | None]:
        """(the line under `model`'s number `value` in `column`, or None; the reason it shows
        `(no CI)`, or None). A headline's reach is in the number's own units (percent for a
        rate), so it is measured from the number shown, not from the stored rate."""
        if column not in self.heads:
            return self.reaches.get(column, {}).get(model) or None, None
        track, headline = self.heads[column]
        found = headline_bounds(self.by_run.get((model, track)), headline)
        if isinstance(found, Bounds):
            scale = 100.0 if headline.percent else 1.0
            return reach_text(float(value) / scale, found, scale), None  # type: ignore[arg-type]
        if isinstance(found, str):
            return NO_CI, found
        return None, None


def _cell_text(
    value: object,
    column: str,
    model: str,
    intervals: _Intervals,
    bands: Mapping[str, Mapping[str, int]],
) -> tuple[str, str | None]:
    """(what one cell shows, the reason its number has no interval or None): the number as
    the table shows it, then the line under it (its interval's reach, or `(no CI)`), then its
    rank band; an empty cell stays empty, with neither."""
    text = plain(value)
    if not text:
        return text, None
    under, why = intervals.under(column, model, value)
    lines = [text] if under is None else [text, under]
    if model in bands.get(column, {}):
        lines.append(f"rank {bands[column][model]}")
    return "\n".join(lines), why


def _band_columns(heads: Mapping[str, tuple[str, Headline]]) -> list[str]:
    """Per track, the column of its first headline with an interval."""
    first: dict[str, str] = {}
    for column, (track, headline) in heads.items():
        if headline.interval is not None:
            first.setdefault(track, column)
    return list(first.values())


def _board_bands(boards: Mapping[str, BoardRecord]) -> dict[str, dict[str, int]]:
    """A board's ratings show the board's own rank (the same rule)."""
    return {
        f"{track_title(track)} rating": {
            model: entry.rank
            for model, entry in record.board.models.items()
            if entry.rank is not None
        }
        for track, record in boards.items()
    }


def _board_reaches(boards: Mapping[str, BoardRecord]) -> dict[str, dict[str, str]]:
    """Rating column -> model -> how far the rating's interval reaches, as the board's page
    shows it; a rating without a whole interval shows none."""
    return {
        f"{track_title(track)} rating": {
            model: reach
            for model, entry in record.board.models.items()
            if (reach := ci_text(entry))
        }
        for track, record in boards.items()
    }


def plain(value: object) -> str:
    """A cell as text: numbers as the table shows them (`85.71`, `100`), nothing for a missing
    one, anything else as it is."""
    if value is None or (isinstance(value, float) and not is_number(value)):
        return ""
    if is_number(value):
        number = float(value)  # type: ignore[arg-type]
        return f"{int(number)}" if number.is_integer() else f"{number:g}"
    return str(value)
