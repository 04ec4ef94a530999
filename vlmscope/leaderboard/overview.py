"""The overview table: one row per model, each track's headline numbers side by side.

Scores are percentages (0-100) as the papers print them; ratings keep their own scale with the
95% interval beside them. Each model also shows when it was last run, under which config
hash(es), and how many of its items failed, could not be parsed, or were otherwise flagged, so
a low score caused by broken requests is visible next to the score itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from pandas.api.types import is_numeric_dtype

from vlmscope.leaderboard.rating_view import board_ratings, ci_text, rating_board
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import MISSING, is_number, number_at, percent

TRACK_TITLES = {
    "megabench": "MEGA-Bench",
    "simplevqa": "SimpleVQA",
    "probench": "ProBench",
    "visionarena": "VisionArena",
}
TRACK_ORDER = tuple(TRACK_TITLES)
RUN_COLUMNS = ["Run date", "Config hash", "Failed", "Unparseable", "Other flags"]


@dataclass(frozen=True)
class Headline:
    """One headline column: a label and the key path of a 0-1 score in the track summary."""

    label: str
    keys: tuple[str, ...]


HEADLINES: dict[str, tuple[Headline, ...]] = {
    "megabench": (
        Headline("overall", ("overall",)),
        Headline("Core", ("core",)),
        Headline("Open", ("open",)),
    ),
    "simplevqa": (Headline("F", ("F",)), Headline("CGA", ("CGA",))),
}
GENERIC_HEADLINES = 2


def track_title(track: str) -> str:
    return TRACK_TITLES.get(track, track)


def ordered_tracks(records: Sequence[SummaryRecord]) -> list[str]:
    """Known tracks in the design's order, then any other track alphabetically."""
    present = {r.track for r in records}
    return [t for t in TRACK_ORDER if t in present] + sorted(present - set(TRACK_ORDER))


def headlines_for(track: str, records: Sequence[SummaryRecord]) -> tuple[Headline, ...]:
    """A known track's headlines; for a new track, its summary's first numbers (tracks put the
    headline numbers first), so a track that lands shows up before it gets its own page."""
    if track in HEADLINES:
        return HEADLINES[track]
    first = next((r for r in records if r.track == track), None)
    if first is None:
        return ()
    keys = [k for k, v in first.scores.items() if is_number(v)][:GENERIC_HEADLINES]
    return tuple(Headline(k, (k,)) for k in keys)


def overview_frame(records: Sequence[SummaryRecord]) -> pd.DataFrame:
    """One row per model, best first by the first score column."""
    tracks = ordered_tracks(records)
    by_run = {(r.model, r.track): r for r in records}
    boards = {t: rating_board(records, t) for t in tracks}
    ratings = {t: board_ratings(b) for t, b in boards.items() if b is not None}
    models = sorted({r.model for r in records} | {m for rs in ratings.values() for m in rs})
    columns: list[str] = ["Model"]
    for track in tracks:
        title = track_title(track)
        if track in ratings:
            columns += [f"{title} rating", f"{title} 95% CI"]
        else:
            columns += [f"{title} {h.label}" for h in headlines_for(track, records)]
    rows = []
    for model in models:
        row: dict[str, object] = {"Model": model}
        for track in tracks:
            title = track_title(track)
            if track in ratings:
                rating = ratings[track].get(model)
                row[f"{title} rating"] = round(rating.rating, 1) if rating else MISSING
                row[f"{title} 95% CI"] = ci_text(rating) if rating else ""
                continue
            record = by_run.get((model, track))
            for h in headlines_for(track, records):
                value = number_at(record.scores, *h.keys) if record else None
                row[f"{title} {h.label}"] = percent(value)
        row.update(_run_columns([r for r in records if r.model == model]))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=columns + RUN_COLUMNS)
    scores = [c for c in columns[1:] if is_numeric_dtype(frame[c])]
    if scores:  # by the first score, ties and models without it by the next ones
        frame = frame.sort_values(scores, ascending=False, na_position="last", kind="stable")
    return frame.reset_index(drop=True)


def _run_columns(runs: Sequence[SummaryRecord]) -> dict[str, object]:
    return {
        "Run date": max((r.finished_at[:10] for r in runs), default=""),
        "Config hash": ", ".join(sorted({r.config_hash for r in runs if r.config_hash})),
        "Failed": sum(r.failed for r in runs),
        "Unparseable": sum(r.unparseable for r in runs),
        "Other flags": sum(r.other_flags for r in runs),
    }
