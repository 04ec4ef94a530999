"""Win rates: predicted from ratings, and observed pairwise win fractions.

Predicted (arena-hard v0.1 / ProBench ``predict_win_rate`` + ``get_win_rate_column``):
``P(i beats j) = 1 / (1 + base ** ((R_j - R_i) / scale))``. A judge-vs-baseline board
reports each model's predicted win rate against the baseline in percent. For arena-hard
v2's ``exp(c_m) / (exp(c_m) + exp(c_b))`` on natural coefficients use ``base=math.e``,
``scale=1``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from vlmscope.ratings.inputs.battles import Battles, FloatArray


def predicted_win_matrix(
    ratings: ArrayLike, *, base: float = 10.0, scale: float = 400.0
) -> FloatArray:
    """``[i, j]`` = predicted probability that model i beats model j; NaN on the diagonal."""
    r = np.asarray(ratings, dtype=np.float64)
    with np.errstate(over="ignore"):
        probs = 1.0 / (1.0 + np.power(base, (r[None, :] - r[:, None]) / scale))
    np.fill_diagonal(probs, np.nan)
    return probs


def win_rate_vs_baseline(
    ratings: Mapping[str, float],
    baseline: str,
    *,
    base: float = 10.0,
    scale: float = 400.0,
    percent: bool = True,
    decimals: int | None = 2,
) -> dict[str, float]:
    """Predicted win rate of every model against ``baseline`` (the baseline gets 0.5).

    Defaults give ``get_win_rate_column``: percent, rounded to 2 decimals (numpy rounding). A
    rating that is NaN (a bootstrap percentile of a model missing from some rounds) gets 0.5 like
    the baseline, as the reference's ``fillna(0.5)`` gives it.
    """
    if baseline not in ratings:
        raise KeyError(f"baseline {baseline!r} not rated")
    names = list(ratings)
    values = np.array([ratings[n] for n in names], dtype=np.float64)
    with np.errstate(over="ignore"):
        probs = 1.0 / (1.0 + np.power(base, (ratings[baseline] - values) / scale))
    probs[names.index(baseline)] = 0.5
    probs[np.isnan(probs)] = 0.5
    if percent:
        probs = probs * 100.0
    if decimals is not None:
        probs = np.round(probs, decimals)
    return dict(zip(names, probs.tolist(), strict=True))


def pairwise_win_fraction(
    battles: Battles, order: Sequence[str] | None = None
) -> tuple[tuple[str, ...], FloatArray]:
    """FastChat ``compute_pairwise_win_fraction``: ``[i, j]`` = share of the i-vs-j battles
    (either side) that i won; ties count in the denominator only (FastChat feeds it the
    tie-free battles).

    Like the reference's pandas alignment, an entry is NaN unless i and j both won and
    lost at least once on each side where needed (a model never winning as model_a has
    no row in the reference's table), or when the pair never met. Default order: mean
    row value, descending.
    """
    m = battles.n_models
    a, b, w = battles.model_a, battles.model_b, battles.weights
    a_won, b_won = battles.outcome == 1.0, battles.outcome == 0.0
    wins_as_a = np.zeros((m, m))
    wins_as_b = np.zeros((m, m))
    met = np.zeros((m, m))
    np.add.at(wins_as_a, (a[a_won], b[a_won]), w[a_won])
    np.add.at(wins_as_b, (a[b_won], b[b_won]), w[b_won])
    np.add.at(met, (a, b), w)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = (wins_as_a + wins_as_b.T) / (met + met.T)
    present = np.zeros(m, dtype=bool)

    def has(ids: np.ndarray) -> np.ndarray:
        mask = present.copy()
        mask[ids] = True
        return mask

    rows = has(a[a_won]) & has(b[b_won]) & has(a) & has(b)
    cols = has(b[a_won]) & has(a[b_won]) & has(a) & has(b)
    frac[~rows, :] = np.nan
    frac[:, ~cols] = np.nan
    names = battles.models
    if order is None:
        sums = np.nansum(frac, axis=1)
        seen = (~np.isnan(frac)).sum(axis=1)
        means = np.where(seen > 0, sums / np.maximum(seen, 1), -np.inf)
        idx = np.argsort(-means, kind="stable")
    else:
        idx = np.array([names.index(n) for n in order], dtype=np.intp)
    return tuple(names[i] for i in idx), frac[np.ix_(idx, idx)]
