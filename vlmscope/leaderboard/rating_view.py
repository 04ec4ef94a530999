"""Rating tracks (ProBench, VisionArena): boards of ratings with confidence intervals.

A rating track's summary holds one board for all models, because Bradley-Terry ratings are only
comparable within one fit:
`{"ratings": {model: {"rating", "lower", "upper"}}, "style_control": {...same...},
"categories": {category: {...}}}`, where a category is either a `{model: {...}}` map or an object
with its own "ratings" and "style_control". Any track whose summary has that shape gets a
rating page; nothing here is specific to one benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import number_at

OVERALL = "overall"
RATING_COLUMNS = ["Rank", "Model", "Rating", "Lower", "Upper", "95% CI"]


@dataclass(frozen=True)
class Rating:
    rating: float
    lower: float
    upper: float


def is_rating_summary(scores: Mapping[str, Any]) -> bool:
    return bool(_ratings_map(scores.get("ratings")))


def rating_board(records: Sequence[SummaryRecord], track: str) -> Mapping[str, Any] | None:
    """The newest rating summary of the track: every model's rating comes from this one fit."""
    boards = [r for r in records if r.track == track and is_rating_summary(r.scores)]
    if not boards:
        return None
    return max(boards, key=lambda r: r.finished_at).scores


def board_categories(board: Mapping[str, Any]) -> list[str]:
    categories = board.get("categories")
    names = sorted(str(k) for k in categories) if isinstance(categories, Mapping) else []
    return [OVERALL, *names]


def board_ratings(
    board: Mapping[str, Any], category: str = OVERALL, *, style_control: bool = False
) -> dict[str, Rating]:
    """The ratings of one category, with or without style control ({} when not reported)."""
    source: Any = board
    if category != OVERALL:
        categories = board.get("categories")
        source = categories.get(category) if isinstance(categories, Mapping) else None
        if isinstance(source, Mapping) and "ratings" not in source:
            return {} if style_control else _ratings_map(source)
    if not isinstance(source, Mapping):
        return {}
    return _ratings_map(source.get("style_control" if style_control else "ratings"))


def has_style_control(board: Mapping[str, Any]) -> bool:
    return bool(board_ratings(board, style_control=True))


def ci_ranks(ratings: Mapping[str, Rating]) -> dict[str, int]:
    """Rank = 1 + number of models whose lower bound beats this model's upper bound.

    As the Arena leaderboards rank: models whose intervals overlap share a rank, so a rank says
    who leads with confidence, not who leads by noise.
    """
    return {
        model: 1 + sum(other.lower > own.upper for other in ratings.values())
        for model, own in ratings.items()
    }


def rating_frame(ratings: Mapping[str, Rating]) -> pd.DataFrame:
    """One row per model, best first, with its CI rank and interval."""
    ranks = ci_ranks(ratings)
    rows = [
        [
            ranks[model],
            model,
            round(r.rating, 1),
            round(r.lower, 1),
            round(r.upper, 1),
            ci_text(r),
        ]
        for model, r in sorted(ratings.items(), key=lambda kv: -kv[1].rating)
    ]
    return pd.DataFrame(rows, columns=RATING_COLUMNS)


def ci_text(rating: Rating) -> str:
    """`+12.3 / -8.1`: how far the interval reaches above and below the rating."""
    return f"+{rating.upper - rating.rating:.1f} / -{rating.rating - rating.lower:.1f}"


def _ratings_map(value: Any) -> dict[str, Rating]:
    if not isinstance(value, Mapping):
        return {}
    out = {}
    for model, entry in value.items():
        rating = _rating(entry)
        if rating is not None:
            out[str(model)] = rating
    return out


def _rating(entry: Any) -> Rating | None:
    rating, lower, upper = (number_at(entry, k) for k in ("rating", "lower", "upper"))
    if rating is None or lower is None or upper is None:
        return None
    return Rating(rating, lower, upper)
