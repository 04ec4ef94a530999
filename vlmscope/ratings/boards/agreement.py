"""Agreement between two leaderboards (VisionArena Table 4; arena-hard metrics).

* Spearman and Kendall tau (tau-b) between the two score vectors of the shared models.
* Separability with confidence: share of model pairs whose intervals do not overlap.
* Confidence agreement: over all pairs, +1 when both boards separate the pair with
  confidence in the same order, -1 when both separate it in opposite orders, 0 when
  either cannot separate it; averaged.
* Pairwise accuracy: share of the pairs the second board orders (ties left out) that the first
  board orders the same way by its point scores.
* Brier score (arena-hard's "pair rank" Brier): the first board forecasts, for each pair the
  second board orders, the chance that the second board's winner wins, as Bradley-Terry on the
  Elo scale does (``1 / (1 + 10 ** (-(s_i - s_j) / 400))``); the score is the mean squared
  error of that forecast against the second board's order (0 is perfect, 0.25 a coin). The
  VisionArena paper prints no formula for it; this reading matches the Elo-scale boards both
  sides produce here, so a board given on another scale (win rates in %) must say so by
  ``scale``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from vlmscope.ratings.inputs.battles import FloatArray

# scipy.stats is imported by the two functions that use it, not with this module: importing it
# takes 1-3 s, and every board writer and track that can compare boards imports this module.


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    from scipy import stats

    return float(stats.spearmanr(x, y).statistic)


def kendall_tau(x: ArrayLike, y: ArrayLike) -> float:
    from scipy import stats

    return float(stats.kendalltau(x, y).statistic)


def _confident_order(lower: ArrayLike, upper: ArrayLike) -> FloatArray:
    """``[i, j]`` = +1 if i is confidently above j, -1 if below, 0 if intervals overlap."""
    lo, up = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    above = lo[:, None] > up[None, :]
    return above.astype(np.float64) - above.T.astype(np.float64)


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, k=1)


def separability(lower: ArrayLike, upper: ArrayLike) -> float:
    """Share of model pairs whose confidence intervals do not overlap."""
    order = _confident_order(lower, upper)
    i, j = _pairs(order.shape[0])
    return float(np.mean(order[i, j] != 0)) if len(i) else float("nan")


def confidence_agreement(
    lower_x: ArrayLike, upper_x: ArrayLike, lower_y: ArrayLike, upper_y: ArrayLike
) -> float:
    """Mean over pairs of (+1 agree, -1 disagree, 0 not separated by both)."""
    ox, oy = _confident_order(lower_x, upper_x), _confident_order(lower_y, upper_y)
    i, j = _pairs(ox.shape[0])
    return float(np.mean(ox[i, j] * oy[i, j])) if len(i) else float("nan")


ELO_SCALE = 400.0
"""Rating points per factor of ten in the odds (FastChat's and arena-hard's boards)."""


def pairwise_accuracy(x: ArrayLike, y: ArrayLike) -> float:
    """Share of the pairs ``y`` orders that ``x`` orders the same way (a tie in ``x`` counts
    as wrong: it did not call the pair)."""
    gaps = _ordered_pairs(x, y)
    if gaps is None:
        return float("nan")
    x_gap, truth = gaps
    return float(np.mean(np.sign(x_gap) == truth))


def brier_score(x: ArrayLike, y: ArrayLike, *, scale: float = ELO_SCALE) -> float:
    """Mean squared error of ``x``'s Bradley-Terry forecast of each pair against ``y``'s order.

    For a pair that ``y`` orders (ties left out), the outcome is 1 when ``y`` puts i above j and
    0 otherwise; ``x`` forecasts ``1 / (1 + 10 ** ((s_j - s_i) / scale))``.
    """
    gaps = _ordered_pairs(x, y)
    if gaps is None:
        return float("nan")
    x_gap, truth = gaps
    forecast = 1.0 / (1.0 + np.power(10.0, -x_gap / scale))
    return float(np.mean((forecast - (truth > 0)) ** 2))


def _ordered_pairs(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray] | None:
    """Over the pairs i < j that ``y`` orders: ``x_i - x_j`` and the sign of ``y_i - y_j``;
    None when ``y`` orders no pair."""
    sx, sy = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    i, j = _pairs(len(sx))
    truth = np.sign(sy[i] - sy[j])
    called = truth != 0
    if not called.any():
        return None
    return (sx[i] - sx[j])[called], truth[called]


@dataclass(frozen=True)
class AgreementReport:
    models: tuple[str, ...]
    spearman: float
    kendall_tau: float
    confidence_agreement: float
    separability_x: float
    separability_y: float
    pairwise_accuracy: float
    """Share of the pairs y orders that x orders the same way."""
    brier: float
    """x's Bradley-Terry forecast of y's pair order, mean squared error (0 best, 0.25 a coin)."""


def compare_leaderboards(
    x: Mapping[str, Sequence[float]],
    y: Mapping[str, Sequence[float]],
    *,
    scale: float = ELO_SCALE,
) -> AgreementReport:
    """Compare two boards given as ``model -> (score, lower, upper)`` on their shared models;
    y is the reference the pairwise accuracy and the Brier score are measured against, and
    ``scale`` is x's points per factor of ten in the odds."""
    models = tuple(m for m in x if m in y)
    bx = np.array([x[m][:3] for m in models], dtype=np.float64).reshape(-1, 3)
    by = np.array([y[m][:3] for m in models], dtype=np.float64).reshape(-1, 3)
    return AgreementReport(
        models=models,
        spearman=spearman(bx[:, 0], by[:, 0]),
        kendall_tau=kendall_tau(bx[:, 0], by[:, 0]),
        confidence_agreement=confidence_agreement(bx[:, 1], bx[:, 2], by[:, 1], by[:, 2]),
        separability_x=separability(bx[:, 1], bx[:, 2]),
        separability_y=separability(by[:, 1], by[:, 2]),
        pairwise_accuracy=pairwise_accuracy(bx[:, 0], by[:, 0]),
        brier=brier_score(bx[:, 0], by[:, 0], scale=scale),
    )
