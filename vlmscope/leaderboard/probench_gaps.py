"""Why a model's row in ProBench's official table is empty, one line per model and track.

ProBench fits each model against the baseline alone; a fit that cannot be made (the oracle
answers with the baseline's own answers, so every style difference is 0) leaves its cells
empty. The breakdown table says why in its Note column, but the official table, the first
one a visitor reads, showed a row of blanks with no reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from vlmscope.leaderboard.probench_view import (
    baseline_of,
    entry_at,
    is_baseline,
    skip_reason,
    track_label,
    tracks_of,
)
from vlmscope.leaderboard.records import SummaryRecord


def unfitted_lines(records: Mapping[str, SummaryRecord]) -> list[str]:
    """`model (tracks): not fitted: reason` for the tracks with no official entry for a model,
    tracks of one reason on one line (`no result` when the summary gives none); the baseline
    has no fit to lack."""
    baseline = baseline_of(records)
    lines = []
    for model, record in records.items():
        if is_baseline(record) or model == baseline:
            continue
        by_reason: dict[str, list[str]] = {}
        for track in tracks_of(records):
            if not entry_at(record.scores, track):
                reason = skip_reason(record.scores, track) or "no result"
                by_reason.setdefault(reason, []).append(track_label(track))
        for reason, labels in by_reason.items():
            lines.append(f"{model} ({', '.join(labels)}): not fitted: {reason}")
    return lines
