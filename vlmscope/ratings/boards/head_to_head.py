"""How likely model A beats model B, forecast by a board's own Bradley-Terry fit.

A board's ratings come from one fit with a bootstrap; its intervals are per model, so two
overlapping intervals say little about the pair. The pair's question is the rating difference:
`P(A beats B) = 1 / (1 + base ** ((R_B - R_A) / scale))` at the point ratings, and its 95%
interval from the same difference in every bootstrap round of the same fit. The rounds are
redrawn exactly as the board drew them (the settings it records: reference, stream, seed,
rounds, style control), so the point forecast is the one the board's ratings imply, and every
pair of a model set comes from one set of rounds.

Verdict boards (a judge against a baseline: ProBench's joint board, VisionArena-Bench) refit
with arena-hard v0.1's math (`judged_boards.arena_hard_v01_fit`); human battle boards with the
battle presets' (`battle_presets.board_fit`). Boards that have no joint Bradley-Terry fit (the
ProBench reference, one fit per model; arena-hard v2, win rates) raise `NoForecast` saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlmscope.ratings.boards.arena_hard_v01 import judged_battles_table
from vlmscope.ratings.boards.battle_presets import BattleSettings, board_fit
from vlmscope.ratings.boards.board import BoardSettings
from vlmscope.ratings.boards.judged_boards import arena_hard_v01_fit
from vlmscope.ratings.boards.verdict_presets import ARENA_HARD_V01, select_verdicts
from vlmscope.ratings.fits.bootstrap import BootstrapResult
from vlmscope.ratings.inputs.battles import Battles
from vlmscope.ratings.inputs.board_selection import select_board_battles
from vlmscope.ratings.inputs.verdict_battles import battles_from_verdicts
from vlmscope.ratings.inputs.verdict_records import VerdictRecord
from vlmscope.stats.intervals import Interval, interval_of

SCALE, BASE = 400.0, 10.0


class NoForecast(ValueError):
    """A board whose fit gives no head-to-head forecast; the message says why."""


@dataclass(frozen=True)
class HeadToHead:
    """P(A beats B) with its interval; `p_value` tests "they are equally strong" (the rating
    difference is 0)."""

    a: str
    b: str
    probability: Interval
    rating_difference: Interval

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "probability": self.probability.to_json(),
            "rating_difference": self.rating_difference.to_json(),
        }


def win_probability(difference: Any, scale: float = SCALE, base: float = BASE) -> Any:
    """P(A beats B) for a rating difference R_A - R_B (ties count half, as in the fit)."""
    return 1.0 / (1.0 + np.power(base, -np.asarray(difference, dtype=np.float64) / scale))


def head_to_head(fit: BootstrapResult, a: str, b: str) -> HeadToHead:
    """A's forecast against B from a fit's point ratings and bootstrap rounds."""
    index = {name: i for i, name in enumerate(fit.models)}
    for name in (a, b):
        if name not in index:
            raise NoForecast(f"{name} is not on the board")
    point = float(fit.rating[index[a]] - fit.rating[index[b]])
    rounds = fit.samples[:, index[a]] - fit.samples[:, index[b]]
    difference = interval_of(point, rounds, test=True)
    probability = Interval(
        float(win_probability(difference.value)),
        float(win_probability(difference.lower)),
        float(win_probability(difference.upper)),
        difference.p_value,
    )
    return HeadToHead(a, b, probability, difference)


def verdict_fit(
    records: Sequence[VerdictRecord], settings: BoardSettings, category: str | None = None
) -> BootstrapResult:
    """A verdict board's fit redrawn from its records and the settings it records."""
    extra = settings.extra
    if settings.reference != ARENA_HARD_V01:
        raise NoForecast(
            f"the {settings.reference} board has no joint Bradley-Terry fit of the models "
            "(ProBench's reference fits each model alone against the baseline; arena-hard v2 "
            "reports win rates)"
        )
    chosen = select_verdicts(records, category)
    judged = battles_from_verdicts(
        chosen, int(extra.get("weight", 3)), bool(extra.get("first_game_only", False))
    )
    if not judged.rows:
        raise NoForecast("no parseable verdict to fit")
    table = judged_battles_table(judged.rows, style=settings.style_control)
    baseline = str(extra.get("baseline") or "")
    seed = settings.seed if settings.seed is not None else 42
    return arena_hard_v01_fit(  # a comparison reads round differences: keep them finite
        table, baseline, settings.style_control, settings.rounds, seed, upstream_missing=False
    )


def battle_fit(records: Sequence[Mapping[str, Any]], settings: BoardSettings) -> BootstrapResult:
    """A human battle board's fit redrawn from its battles and the settings it records."""
    extra = settings.extra
    rebuilt = BattleSettings(
        reference=settings.reference,
        system=str(extra.get("system") or "bt"),
        style_control=settings.style_control,
        rounds=max(settings.rounds, 1),
        seed=settings.seed if settings.seed is not None else 0,
        anchor_model=settings.anchor_model,
        anchor_rating=settings.anchor_rating,
    )
    chosen = select_board_battles(records)
    return board_fit(Battles.from_records(chosen, style=settings.style_control), rebuilt)
