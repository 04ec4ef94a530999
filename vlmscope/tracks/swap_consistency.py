"""How consistent a pairwise judge was, from the two games it played per prompt.

ProBench and VisionArena-Bench judge every prompt twice, the answers' positions swapped, so that
position bias cancels in the rating. The same two games say how much there was to cancel:

- `order_disagreements`: prompts whose two games disagree in direction (the model better, a tie,
  the baseline better), over the prompts whose two games both gave a usable label
  (`both_read`); `order_disagreement_rate` their share;
- `unparseable_games`: games without a usable label (no judgment, no label, conflicting labels,
  a label the track's reference drops), over all games played; `unparseable_rate`;
- position bias: over the games with a usable label, how often the answer shown first (as
  Assistant A) won (`first_shown_win_rate`), the one shown second (`second_shown_win_rate`),
  and ties (`tie_rate`). An unbiased judge wins as often in either place.

The counts are kept beside the rates so that models add up to the whole (`combined`). A rate
over nothing is None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vlmscope.judges.verdicts import label_preference

COUNTS = (
    "prompts",
    "both_read",
    "order_disagreements",
    "games",
    "unparseable_games",
    "first_shown_wins",
    "second_shown_wins",
    "ties",
)
RATES = {
    "order_disagreement_rate": ("order_disagreements", "both_read"),
    "unparseable_rate": ("unparseable_games", "games"),
    "first_shown_win_rate": ("first_shown_wins", "read_games"),
    "second_shown_win_rate": ("second_shown_wins", "read_games"),
    "tie_rate": ("ties", "read_games"),
}


def _first_shown_score(game: Mapping[str, Any]) -> float | None:
    """Assistant A's score in a game (1 win, 0.5 tie, 0 loss); None without a usable label."""
    if game.get("outcome") != "parsed":
        return None
    preference = label_preference(game.get("label"), accept_mirrored=True)
    return None if preference is None else preference.a_score


def _direction(score: float) -> int:
    return (score > 0.5) - (score < 0.5)


def prompt_games(games: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The counts of one prompt's games (`model_first` says which answer Assistant A was)."""
    counts = dict.fromkeys(COUNTS, 0)
    counts["prompts"] = 1
    model_scores = []
    for game in games:
        counts["games"] += 1
        score = _first_shown_score(game)
        if score is None:
            counts["unparseable_games"] += 1
            continue
        counts["first_shown_wins"] += score == 1.0
        counts["second_shown_wins"] += score == 0.0
        counts["ties"] += score == 0.5
        model_scores.append(score if game.get("model_first") else 1.0 - score)
    if len(games) == 2 and len(model_scores) == 2:
        counts["both_read"] = 1
        counts["order_disagreements"] = _direction(model_scores[0]) != _direction(model_scores[1])
    return counts


def with_rates(counts: Mapping[str, int]) -> dict[str, Any]:
    """The counts and the rates they give."""
    read_games = counts["games"] - counts["unparseable_games"]
    base = {**counts, "read_games": read_games}
    rates = {
        name: (base[top] / base[bottom] if base[bottom] else None)
        for name, (top, bottom) in RATES.items()
    }
    return {**counts, **rates}


def consistency(prompts: Iterable[Sequence[Mapping[str, Any]]]) -> dict[str, Any] | None:
    """The consistency of the judge over prompts (each its list of games); None for none."""
    total = dict.fromkeys(COUNTS, 0)
    for games in prompts:
        for name, value in prompt_games(games).items():
            total[name] += value
    return with_rates(total) if total["prompts"] else None


def combined(parts: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Several models' consistency as one (their counts added up)."""
    total = dict.fromkeys(COUNTS, 0)
    for part in parts:
        for name in COUNTS:
            total[name] += int(part.get(name) or 0)
    return with_rates(total) if total["prompts"] else None
