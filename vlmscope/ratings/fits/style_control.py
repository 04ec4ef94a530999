"""Style control: Bradley-Terry fitted jointly with style coefficients.

``logit = ln(base) * (r_a - r_b) + sum_k beta_k f_k``. Reported ratings are the model
coefficients only, i.e. with the effect of answer length and markdown removed.

Features (FastChat / arena-hard v0.1 / ProBench, identical formulas): per element
``(a - b) / (a + b + 1)`` on raw counts (tokens, headers, lists, bold), standardised over
all battles with the population std. They are computed once on the full data; bootstrap
rounds reuse them. Penalty ``reg / 2 * ||theta||^2`` on all parameters with ``reg = 0.5``
(FastChat; equals sklearn ``C = 1`` on the arena-hard duplicated rows).

A feature that is the same in every battle cannot be standardised (its std is 0): that raises
:class:`~vlmscope.ratings.fits.fit_checks.FitError` naming it, as do non-finite counts, instead of
feeding NaN to the fit (which would leave every model at 1000).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from vlmscope.ratings.fits._newton import newton_solve
from vlmscope.ratings.fits._paired_design import PairedDesign, build_design
from vlmscope.ratings.fits.bradley_terry import FASTCHAT_ANCHOR, Anchor, to_rating_scale
from vlmscope.ratings.fits.fit_checks import require_finite, require_varying
from vlmscope.ratings.inputs.battles import Battles, FloatArray

#: The four FastChat style elements, in column order (tokens, headers, lists, bold).
FEATURE_NAMES = ("tokens", "headers", "lists", "bold")


@dataclass(frozen=True)
class StyleFit:
    """Style-controlled ratings (rating scale, by model id) and style coefficients."""

    ratings: FloatArray
    coefs: FloatArray


def style_features(
    style_a: ArrayLike,
    style_b: ArrayLike,
    *,
    apply_ratio: Sequence[bool] | None = None,
    add_one: bool = True,
    ddof: int = 0,
    names: Sequence[str] | None = FEATURE_NAMES,
) -> FloatArray:
    """Standardised normalised style differences (n x k).

    ``diff = a - b``, divided by ``a + b (+ 1)`` where ``apply_ratio`` is true (all by
    default), then ``(diff - mean) / std`` per column with ``ddof`` (0 = ``np.std``).
    Raises FitError when a difference is not finite or a column's std is 0 (``names``
    name the columns in the message). The inputs' memory order is kept, and it sets the last
    bits: a column-major input has each column's mean and std summed as one contiguous run
    (pairwise), as a feature-by-row reference such as ``construct_style_matrices`` sums them.
    """
    a = np.atleast_2d(np.asarray(style_a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(style_b, dtype=np.float64))
    diff = a - b
    total = a + b + (1.0 if add_one else 0.0)
    ratio = (
        np.ones(a.shape[1], dtype=bool) if apply_ratio is None else np.asarray(apply_ratio, bool)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        diff[:, ratio] /= total[:, ratio]
    require_finite(diff, "style difference")
    std = diff.std(axis=0, ddof=ddof) if len(diff) > ddof else np.zeros(diff.shape[1])
    require_varying(std, names)
    return (diff - diff.mean(axis=0)) / std


def int32_counts(style_a: ArrayLike, style_b: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The counts as FastChat's ``preprocess_for_style`` sees them: it stores them in an int32
    array and takes ``a - b`` and ``a + b`` in int32, so a count, sum or difference from 2**31
    wraps around. Returned as float counts whose difference and sum are those wrapped values
    (unchanged below 2**31). Counts that are not whole numbers are returned as they are."""
    a = np.atleast_2d(np.asarray(style_a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(style_b, dtype=np.float64))
    whole = np.all(np.isfinite(a)) and np.all(np.isfinite(b))
    if not (whole and np.all(a == np.round(a)) and np.all(b == np.round(b))):
        return a, b
    if max(float(np.abs(a).max(initial=0)), float(np.abs(b).max(initial=0))) < 2**30:
        return a, b  # no sum or difference can reach 2**31
    a32 = a.astype(np.int64).astype(np.int32)
    b32 = b.astype(np.int64).astype(np.int32)
    diff = (a32 - b32).astype(np.float64)
    total = (a32 + b32).astype(np.float64)
    return (total + diff) / 2, (total - diff) / 2


def battle_style_features(battles: Battles) -> FloatArray:
    """FastChat features from the battles' raw style counts (int32 as FastChat stores them)."""
    if battles.style_a is None or battles.style_b is None:
        raise ValueError("battles carry no style counts")
    return style_features(*int32_counts(battles.style_a, battles.style_b))


def style_design(
    model_a: ArrayLike,
    model_b: ArrayLike,
    outcome: ArrayLike,
    features: ArrayLike,
    weights: ArrayLike | None,
    n_models: int,
    base: float,
) -> PairedDesign:
    """Merged design for a style fit (the merge key includes the feature values)."""
    return build_design(
        np.asarray(model_a, dtype=np.intp),
        np.asarray(model_b, dtype=np.intp),
        np.asarray(outcome, dtype=np.float64),
        np.asarray(features, dtype=np.float64),
        None if weights is None else np.asarray(weights, dtype=np.float64),
        n_models,
        math.log(base),
    )


def fit_style_bt(
    model_a: ArrayLike,
    model_b: ArrayLike,
    outcome: ArrayLike,
    features: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    models: Sequence[str],
    anchor: Anchor | None = FASTCHAT_ANCHOR,
    reg: float = 0.5,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> StyleFit:
    """Joint fit on an arbitrary feature matrix (n x k, already normalised as wanted)."""
    design = style_design(model_a, model_b, outcome, features, weights, len(models), base)
    theta = newton_solve(design, design.merged.weights, reg=reg)[0]
    m = len(models)
    return StyleFit(to_rating_scale(theta[:m], models, anchor, scale, init), theta[m:].copy())


def style_control_ratings(
    battles: Battles,
    *,
    features: ArrayLike | None = None,
    anchor: Anchor | None = FASTCHAT_ANCHOR,
    reg: float = 0.5,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> StyleFit:
    """FastChat ``compute_style_control``; ``features`` default to the four FastChat ones."""
    feats = battle_style_features(battles) if features is None else features
    return fit_style_bt(
        battles.model_a,
        battles.model_b,
        battles.outcome,
        feats,
        battles.weights,
        models=battles.models,
        anchor=anchor,
        reg=reg,
        base=base,
        scale=scale,
        init=init,
    )
