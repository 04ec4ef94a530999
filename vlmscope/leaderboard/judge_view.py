"""How consistent a pairwise track's judge was, for the track's page (ProBench,
VisionArena-Bench).

A run records it on the track's board (`settings.extra["consistency"]`: per judged model and
overall) and in each model's summary (`consistency`), from the two games per prompt
(`vlmscope.tracks.swap_consistency`): the share of prompts whose two games, the answers'
places swapped, disagree in direction; the share of games without a usable verdict; and how
often the answer shown first, or second, won. The board's numbers are read first; results
without them fall back to the summaries; results from before either was recorded have none,
and the page says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import MISSING, number_at, percent
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.tracks.swap_consistency import combined

CONSISTENCY = "consistency"
ALL_MODELS = "all judged models"
COLUMNS = {
    "Prompts read in both orders": ("both_read", False),
    "Order disagreements (%)": ("order_disagreement_rate", True),
    "Unparseable games (%)": ("unparseable_rate", True),
    "First shown wins (%)": ("first_shown_win_rate", True),
    "Second shown wins (%)": ("second_shown_win_rate", True),
    "Ties (%)": ("tie_rate", True),
}
NOTE = (
    "### Judge consistency\n"
    "Each prompt is judged twice, the two answers' places swapped. **Order disagreements**: "
    "prompts whose two games disagree on which answer is better (or call one a tie), of those "
    "read in both orders. **Unparseable games**: games without a usable verdict. **First / "
    "second shown wins**: how often the answer shown first (as Assistant A), or second, won; "
    "a judge without position bias wins as often in either place."
)
NONE_NOTE = "No judge consistency in these results (they were written before it was recorded)."


def consistency_of(
    board: RatingBoard | None, records: Mapping[str, SummaryRecord]
) -> tuple[dict[str, Mapping[str, Any]], Mapping[str, Any] | None]:
    """Each judged model's consistency and the overall one, from the board or the summaries."""
    recorded = board.settings.extra.get(CONSISTENCY) if board is not None else None
    if isinstance(recorded, Mapping) and isinstance(recorded.get("models"), Mapping):
        models = {str(m): c for m, c in recorded["models"].items() if isinstance(c, Mapping)}
        overall = recorded.get("overall")
        return models, overall if isinstance(overall, Mapping) else combined(models.values())
    models = {
        model: found
        for model, record in records.items()
        if isinstance(found := record.scores.get(CONSISTENCY), Mapping)
    }
    return models, combined(models.values()) if models else None


def consistency_frame(
    board: RatingBoard | None, records: Mapping[str, SummaryRecord]
) -> pd.DataFrame:
    """One row per judged model, then the overall row; empty when nothing was recorded."""
    models, overall = consistency_of(board, records)
    rows = [_row(model, found) for model, found in sorted(models.items())]
    if overall is not None and rows:
        rows.append(_row(ALL_MODELS, overall))
    return pd.DataFrame(rows, columns=["Model", *COLUMNS])


def _row(name: str, found: Mapping[str, Any]) -> list[object]:
    cells: list[object] = [name]
    for key, is_rate in COLUMNS.values():
        value = number_at(found, key)
        if is_rate:
            cells.append(percent(value))
        else:
            cells.append(MISSING if value is None else int(value))
    return cells
