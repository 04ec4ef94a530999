"""Bradley-Terry maximum likelihood ratings.

``P(a beats b) = 1 / (1 + base ** ((R_b - R_a) / scale))``; a tie counts as half a win and
half a loss; no regularisation. Natural strengths ``r`` map to ratings as
``R = scale * r + init``, then an optional anchor shifts everything so one named model
sits at a fixed rating. Without an anchor (or when the anchor model is absent) ratings
average ``init``, which is where the references' zero-started optimisers end.

FastChat ``compute_bt`` = :func:`bt_ratings` with :data:`FASTCHAT_ANCHOR`; arena-hard v0.1 /
ProBench ``compute_mle_elo`` (duplicated rows, one tie = one win + one loss) has the same
optimum and differs only in the anchor: :func:`ah01_anchor` (baseline = 1000).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from vlmscope.ratings.fits._newton import newton_solve
from vlmscope.ratings.fits._paired_design import build_design
from vlmscope.ratings.inputs.battles import Battles, FloatArray


@dataclass(frozen=True)
class Anchor:
    """Pin ``model`` at ``rating``; if absent, fall back to mean ``init`` unless ``required``."""

    model: str
    rating: float
    required: bool = False


#: FastChat ``scale_and_offset`` default.
FASTCHAT_ANCHOR = Anchor("mixtral-8x7b-instruct-v0.1", 1114.0)


def ah01_anchor(baseline: str = "gpt-4-0314") -> Anchor:
    """arena-hard v0.1 ``compute_mle_elo``: the baseline at 1000 when present."""
    return Anchor(baseline, 1000.0)


def to_rating_scale(
    strengths: ArrayLike,
    models: Sequence[str],
    anchor: Anchor | None = None,
    scale: float = 400.0,
    init: float = 1000.0,
) -> FloatArray:
    """``scale * r + init``, shifted so ``anchor.model`` sits at ``anchor.rating``.

    Works on a vector of models or on rounds x models (each row anchored separately).
    """
    ratings = np.asarray(strengths, dtype=np.float64) * scale + init
    if anchor is None:
        return ratings
    if anchor.model in models:
        idx = list(models).index(anchor.model)
        return ratings + (anchor.rating - ratings[..., [idx]])
    if anchor.required:
        raise ValueError(f"anchor model {anchor.model!r} has no battles")
    return ratings


def _n_models(model_a: ArrayLike, model_b: ArrayLike, n_models: int | None) -> int:
    if n_models is not None:
        return n_models
    a, b = np.asarray(model_a), np.asarray(model_b)
    return int(max(a.max(initial=-1), b.max(initial=-1))) + 1


def fit_bt_strengths(
    model_a: ArrayLike,
    model_b: ArrayLike,
    outcome: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    n_models: int | None = None,
    base: float = 10.0,
    tol: float = 1e-11,
) -> FloatArray:
    """Natural-scale MLE strengths (``logit = ln(base) * (r_a - r_b)``), sum zero per
    connected component. Identical rows are merged with summed weights before the fit."""
    a = np.asarray(model_a, dtype=np.intp)
    b = np.asarray(model_b, dtype=np.intp)
    m = _n_models(a, b, n_models)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    design = build_design(a, b, np.asarray(outcome, dtype=np.float64), None, w, m, math.log(base))
    return newton_solve(design, design.merged.weights, tol=tol)[0]


def fit_bt(
    model_a: ArrayLike,
    model_b: ArrayLike,
    outcome: ArrayLike,
    weights: ArrayLike | None = None,
    *,
    models: Sequence[str] | None = None,
    n_models: int | None = None,
    anchor: Anchor | None = None,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> FloatArray:
    """Bradley-Terry ratings on the rating scale, indexed by model id.

    ``outcome`` is model_a's score (1 win, 0.5 tie, 0 loss); ``anchor`` needs ``models``
    (names by id) to find its model.
    """
    m = len(models) if models is not None else n_models
    strengths = fit_bt_strengths(model_a, model_b, outcome, weights, n_models=m, base=base)
    names = list(models) if models is not None else []
    return to_rating_scale(strengths, names, anchor if models is not None else None, scale, init)


def bt_ratings(
    battles: Battles,
    *,
    anchor: Anchor | None = FASTCHAT_ANCHOR,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> FloatArray:
    """FastChat ``compute_bt``: ratings indexed like ``battles.models``."""
    return fit_bt(
        battles.model_a,
        battles.model_b,
        battles.outcome,
        battles.weights,
        models=battles.models,
        anchor=anchor,
        base=base,
        scale=scale,
        init=init,
    )
