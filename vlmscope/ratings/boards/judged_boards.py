"""Leaderboards from judge verdicts: ProBench ``show_result`` and arena-hard-auto v0.1.

The two references run the same math (:mod:`vlmscope.ratings.boards.arena_hard_v01`) on different
slices, and the slice changes the numbers, so both are offered:

* :func:`arena_hard_v01_board`: all judged models and the baseline in one fit, plain BT
  (baseline = 1000) or style control (baseline = 1114).
* :func:`probench_board`: **one model per fit** (ProBench scores one model per run), style
  control always on. Its style features are standardised and its four coefficients estimated
  on that model's battles only, which can differ a lot from a joint fit; the printed Elo and
  CI bounds are truncated to ints and the win rate is computed from the truncated score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vlmscope.ratings.boards.arena_hard_v01 import (
    STYLE_FEATURE_NAMES,
    bootstrap_style_elo,
    duplicated_style_design,
    fit_style_elo,
    judged_battles_table,
    percentiles,
    plain_elo_bootstrap,
)
from vlmscope.ratings.boards.win_rates import win_rate_vs_baseline
from vlmscope.ratings.fits.bootstrap import BootstrapResult
from vlmscope.ratings.inputs.battles import Battles
from vlmscope.ratings.inputs.verdict_battles import (
    DEFAULT_STRONG_WEIGHT,
    JudgedBattle,
    battles_from_verdicts,
)
from vlmscope.ratings.inputs.verdict_records import VerdictRecord

DEFAULT_ROUNDS = 100
REFERENCE_SEED = 42


@dataclass(frozen=True)
class EloBoard:
    """Elo point estimates and 2.5 / 97.5 bootstrap percentiles per model, plus what went in."""

    baseline: str
    score: dict[str, float]
    lower: dict[str, float]
    upper: dict[str, float]
    n_battle_rows: int
    winner_counts: dict[str, int]
    battles_per_model: dict[str, int]
    style_coef: dict[str, float] | None = None

    def win_rate_pct(self) -> dict[str, dict[str, float]]:
        """Win rate vs the baseline for score / lower / upper, as AH-v0.1 prints them."""
        by_column = {
            column: win_rate_vs_baseline(values, self.baseline)
            for column, values in (
                ("score", self.score),
                ("lower", self.lower),
                ("upper", self.upper),
            )
        }
        return {m: {c: by_column[c][m] for c in by_column} for m in self.score}


def arena_hard_v01_board(
    battles: Sequence[JudgedBattle],
    baseline: str,
    style_control: bool = False,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = REFERENCE_SEED,
    *,
    upstream_missing: bool = True,
) -> EloBoard:
    """One joint fit over every model in ``battles`` (AH-v0.1 ``show_result.py``).

    A model missing from a bootstrap sample gets NaN percentiles as upstream; boards that must
    stay finite pass ``upstream_missing=False`` (see :func:`arena_hard_v01_fit`)."""
    table = judged_battles_table(battles, style=style_control)
    fit = arena_hard_v01_fit(
        table, baseline, style_control, rounds, seed, upstream_missing=upstream_missing
    )
    ratings, rounds_elo = fit.rating, fit.samples
    style_coef = (
        None
        if fit.coefs is None
        else dict(zip(STYLE_FEATURE_NAMES, fit.coefs.tolist(), strict=True))
    )
    lower, upper = percentiles(rounds_elo)
    appearances = table.num_battles()
    return EloBoard(
        baseline=baseline,
        score=dict(zip(table.models, ratings.tolist(), strict=True)),
        lower=dict(zip(table.models, lower.tolist(), strict=True)),
        upper=dict(zip(table.models, upper.tolist(), strict=True)),
        n_battle_rows=len(table),
        winner_counts=dict(Counter(b.winner for b in battles)),
        battles_per_model={m: int(c) for m, c in zip(table.models, appearances, strict=True)},
        style_coef=style_coef,
    )


def arena_hard_v01_fit(
    table: Battles,
    baseline: str,
    style_control: bool,
    rounds: int,
    seed: int,
    *,
    upstream_missing: bool = True,
) -> BootstrapResult:
    """The joint fit behind :func:`arena_hard_v01_board`: point ratings and every bootstrap
    round (rounds x models, as the reference draws them), plus the style coefficients of a
    style-controlled fit. A comparison of two models reads its rounds (their difference).

    ``upstream_missing``: a model missing from a round's sample is NaN in that round (and, with
    style control, the round's ratings are labelled as the reference labels them), and a fit or
    round whose rows are all won by the same side raises ``FitError`` as the reference's sklearn
    fit does; False rates every model in every round, so the rounds stay finite."""
    if baseline not in table.models:
        raise ValueError(f"baseline {baseline!r} has no battles")
    if not style_control:
        return plain_elo_bootstrap(table, baseline, rounds, seed, upstream_missing=upstream_missing)
    duplicated = duplicated_style_design(table)
    ratings, coefs = fit_style_elo(
        duplicated.design,
        duplicated.labels,
        table.models,
        baseline,
        one_class_stops="style-controlled fit" if upstream_missing else None,
    )
    samples = bootstrap_style_elo(
        duplicated, baseline, rounds, seed, upstream_missing=upstream_missing
    )
    return BootstrapResult(models=table.models, rating=ratings, samples=samples, coefs=coefs)


@dataclass(frozen=True)
class ProBenchModelResult:
    """What ProBench prints for one model (ints, win rate from the int score) and more."""

    model: str
    board: EloBoard
    score_int: dict[str, int]
    lower_int: dict[str, int]
    upper_int: dict[str, int]
    win_rate_pct: dict[str, float]
    avg_tokens: dict[str, float]
    unparseable: int
    excluded_by_reason: dict[str, int] = field(default_factory=dict)


def probench_board(
    records: Sequence[VerdictRecord],
    model: str,
    baseline: str,
    weight: int = DEFAULT_STRONG_WEIGHT,
    first_game_only: bool = False,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = REFERENCE_SEED,
) -> ProBenchModelResult:
    """ProBench ``get_battles_from_judgment`` for ``model`` (records of other models ignored).

    ``avg_tokens``: the model's mean answer tokens over its judged prompts, and the baseline's
    mean over every prompt in ``records`` (ProBench averages the data set's reference answers).
    """
    own = [r for r in records if r.model == model]
    if not own:
        raise ValueError(f"no verdicts for {model!r}")
    judged = battles_from_verdicts(own, weight=weight, first_game_only=first_game_only)
    board = arena_hard_v01_board(
        judged.rows, baseline, style_control=True, rounds=rounds, seed=seed
    )
    score_int = {m: int(v) for m, v in board.score.items()}
    return ProBenchModelResult(
        model=model,
        board=board,
        score_int=score_int,
        lower_int={m: int(v) for m, v in board.lower.items()},
        upper_int={m: int(v) for m, v in board.upper.items()},
        win_rate_pct=win_rate_vs_baseline({m: float(v) for m, v in score_int.items()}, baseline),
        avg_tokens={baseline: _mean_baseline_tokens(records), model: _mean_model_tokens(own)},
        unparseable=judged.unparseable,
        excluded_by_reason=judged.excluded_by_reason(),
    )


def _mean_model_tokens(records: Sequence[VerdictRecord]) -> float:
    tokens = [r.model_style.tokens for r in records if r.model_style]
    return float(np.mean(tokens)) if tokens else float("nan")


def _mean_baseline_tokens(records: Sequence[VerdictRecord]) -> float:
    by_prompt = {r.uid: r.baseline_style.tokens for r in records if r.baseline_style}
    return float(np.mean(list(by_prompt.values()))) if by_prompt else float("nan")
