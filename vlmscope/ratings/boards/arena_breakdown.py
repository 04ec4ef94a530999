"""What the VisionArena paper reads off a battle board besides the ratings.

- `tie_shares`: the share of `tie` and of `tie (bothbad)` votes among a board's battles (paper
  Table 2: captioning has the fewest "both bad" votes, homework and coding the most);
- `thin_models`: models with fewer than `min_votes` battles on a board (paper Figs. 7-8 star
  cells with fewer than 100 votes; the leaderboard's minimum-votes rule, as a setting);
- `rank_changes`: each model's rank on the plain board minus its rank under style control
  (paper Fig. 8: positive = the model climbs once length and markdown are accounted for).

Pure functions of the battles a board was fitted on, or of boards already fitted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from vlmscope.ratings.boards.board import RatingBoard

TIE = "tie"
BOTH_BAD = "tie (bothbad)"
#: The paper's threshold for a cell it trusts (Figs. 7-8).
DEFAULT_MIN_VOTES = 100


def tie_shares(winners: Sequence[str]) -> dict[str, float | int | None]:
    """`{"battles": n, "tie": share, "tie (bothbad)": share}` in percent (None without battles).

    `winners`: the `winner` field of each battle a board was fitted on (the records of
    `select_board_battles`, or a board's positions into the column `BoardSelector.column`
    reads, which spares a leaderboard of many boards a pass over the records per board)."""
    n = len(winners)
    counts = Counter(winners)
    ties, both_bad = counts[TIE], counts[BOTH_BAD]
    return {
        "battles": n,
        TIE: 100.0 * ties / n if n else None,
        BOTH_BAD: 100.0 * both_bad / n if n else None,
    }


def thin_models(board: RatingBoard, min_votes: int = DEFAULT_MIN_VOTES) -> list[str]:
    """Models of `board` with fewer than `min_votes` battles, in board order."""
    if min_votes < 0:
        raise ValueError(f"min_votes: must be >= 0, got {min_votes}")
    return [
        name
        for name, entry in board.models.items()
        if entry.battles is not None and entry.battles < min_votes
    ]


def rank_changes(board: RatingBoard) -> dict[str, int]:
    """Rank without style control minus rank with it, per model on both boards (needs the
    board's style-controlled companion; empty without one)."""
    styled = board.style_control
    if styled is None:
        return {}
    changes = {}
    for name, entry in board.models.items():
        other = styled.models.get(name)
        if other is not None and entry.rank is not None and other.rank is not None:
            changes[name] = entry.rank - other.rank
    return changes
