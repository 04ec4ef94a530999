"""A comparison as tables for the Space: the pair's numbers, its lists, the pairwise matrix.

Every cell is text or a number (never markup); scores and probabilities in percent, ratings in
points, each estimate with its 95% interval and p-value, as `render` writes them.
"""

from __future__ import annotations

import pandas as pd

from vlmscope.leaderboard.compare.pairs import ListTable, PairComparison, TrackComparison
from vlmscope.leaderboard.compare.render import estimate_text, matrix, p_text, scaled
from vlmscope.leaderboard.safe_html import as_text

NUMBER_COLUMNS = ["Breakdown", "Number", "A", "B", "Difference or probability [95% CI]", "p"]


def numbers_frame(pair: PairComparison) -> pd.DataFrame:
    """One row per number: its breakdown ("" for the headline), each model's value, the
    estimate with its interval, the p-value; the model columns carry the models' names."""
    rows = [
        [
            as_text(n.section),
            as_text(n.label),
            scaled(n.a, n.unit),
            scaled(n.b, n.unit),
            estimate_text(n),
            p_text(n.estimate),
        ]
        for n in pair.numbers
    ]
    columns = [*NUMBER_COLUMNS[:2], as_text(pair.a), as_text(pair.b), *NUMBER_COLUMNS[4:]]
    return pd.DataFrame(rows, columns=columns, dtype=object)


def list_frame(table: ListTable) -> pd.DataFrame:
    rows = [[as_text(c) if isinstance(c, str) else c for c in row] for row in table.rows]
    return pd.DataFrame(rows, columns=[as_text(c) for c in table.columns])


def matrix_frame(track: TrackComparison) -> tuple[str, pd.DataFrame]:
    """The matrix of the track's first headline number (row model against column model)."""
    label, rows = matrix(track)
    models = [as_text(m) for m in track.models]
    return label, pd.DataFrame(
        [[as_text(c) for c in row] for row in rows], columns=["Model", *models], dtype=object
    )
