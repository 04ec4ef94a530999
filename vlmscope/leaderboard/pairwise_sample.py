"""What a browsed sample of a pairwise track shows where it has no score and no reference.

ProBench and VisionArena-Bench judge each answer against a baseline's (or an anchor's) in two
games, and rate all the verdicts together on the track's board; a sample has no score of its
own and no reference answer. The sample browser showed an empty Scores table and an empty
Reference box, which read as missing data; they now say why, and where the verdict is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from vlmscope.leaderboard.safe_html import as_text

NO_SCORE = "(none of its own)"
RATED_TOGETHER = (
    "a pairwise verdict: rated with every other on the track's board (the games are under "
    "Judge reply)"
)


def is_pairwise(extra: Mapping[str, Any]) -> bool:
    """A row judged in games against a baseline (ProBench, VisionArena-Bench)."""
    return isinstance(extra.get("games"), list)


def pairwise_scores(scores: pd.DataFrame, extra: Mapping[str, Any]) -> pd.DataFrame:
    """`scores`, or for a pairwise row with none, one row saying why it has none."""
    if not scores.empty or not is_pairwise(extra):
        return scores
    return pd.DataFrame([[NO_SCORE, None, RATED_TOGETHER]], columns=scores.columns)


def pairwise_reference(reference: str, extra: Mapping[str, Any]) -> str:
    """`reference`, or for a pairwise row with none, what the answer was judged against."""
    if reference or not is_pairwise(extra):
        return reference
    against = as_text(extra.get("baseline") or "the baseline")
    return f"(no reference: judged against the answer of {against}, in two games)"
