"""FastChat's optimiser, reproduced: scipy L-BFGS-B from zero, ``maxiter=100``, ``gtol=1e-6``.

The exact solver (:mod:`vlmscope.ratings.fits._newton`) reaches the optimum; FastChat stops
earlier, so its bootstrap samples differ from the exact ones by ~0.01-0.05 points. That
is far inside any CI, but a bit-level comparison with a FastChat run (e.g. the bootstrap
variance to 1e-9) needs the same optimiser path, which this module provides. It is also
the baseline the benchmarks time. Losses are FastChat's: Bradley-Terry on merged rows
with weights (``compute_bt`` counts, ``compute_bootstrap_bt`` counts / n), style control
as a penalised sum over battle rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vlmscope.ratings.fits.fit_checks import check_moved
from vlmscope.ratings.inputs.battles import FloatArray, IntArray

if TYPE_CHECKING:
    from scipy.optimize import OptimizeResult

# scipy is imported by the functions that run an optimiser (1-2 s): the default solver is
# Newton, and a command that never replays this optimiser never loads it.

_SIGNS = np.array([1.0, -1.0])


def _scatter_pairs(
    grad: FloatArray, model_a: IntArray, model_b: IntArray, per_row: FloatArray
) -> None:
    np.add.at(grad, np.column_stack([model_a, model_b]), per_row[:, None] * _SIGNS)


def bt_loss_and_grad(
    ratings: FloatArray,
    model_a: IntArray,
    model_b: IntArray,
    labels: FloatArray,
    weights: FloatArray,
    alpha: float,
) -> tuple[float, FloatArray]:
    """Weighted soft-label log loss of Bradley-Terry and its gradient."""
    from scipy.special import expit

    probs = expit(alpha * (ratings[model_a] - ratings[model_b]))
    loss = -((np.log(probs) * labels + np.log(1.0 - probs) * (1.0 - labels)) * weights).sum()
    grad = np.zeros_like(ratings)
    _scatter_pairs(grad, model_a, model_b, -alpha * (labels - probs) * weights)
    return float(loss), grad


def style_loss_and_grad(
    params: FloatArray,
    n_models: int,
    model_a: IntArray,
    model_b: IntArray,
    features: FloatArray,
    labels: FloatArray,
    alpha: float,
    reg: float,
) -> tuple[float, FloatArray]:
    """Style-controlled log loss summed over rows plus ``reg / 2 * ||params||^2``."""
    from scipy.special import expit

    ratings, coefs = params[:n_models], params[n_models:]
    probs = expit(alpha * (ratings[model_a] - ratings[model_b]) + features @ coefs)
    loss = -(np.log(probs) * labels + np.log(1.0 - probs) * (1.0 - labels)).sum()
    loss += 0.5 * reg * np.inner(params, params)
    error = labels - probs
    grad = reg * params
    _scatter_pairs(grad[:n_models], model_a, model_b, -alpha * error)
    grad[n_models:] -= features.T @ error
    return float(loss), grad


def lbfgs_bt(
    model_a: IntArray,
    model_b: IntArray,
    labels: FloatArray,
    weights: FloatArray,
    n_models: int,
    alpha: float,
    tol: float = 1e-6,
) -> FloatArray:
    """FastChat ``fit_bt``: natural strengths where L-BFGS-B stops."""
    from scipy.optimize import minimize

    result = minimize(
        bt_loss_and_grad,
        np.zeros(n_models),
        args=(model_a, model_b, labels, weights, alpha),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100, "gtol": tol},
    )
    return _checked(result, n_models, tol)


def lbfgs_style(
    model_a: IntArray,
    model_b: IntArray,
    features: FloatArray,
    labels: FloatArray,
    n_models: int,
    alpha: float,
    reg: float = 0.5,
    tol: float = 1e-6,
) -> FloatArray:
    """FastChat ``fit_contextual_bt``: ratings then coefficients where L-BFGS-B stops."""
    from scipy.optimize import minimize

    result = minimize(
        style_loss_and_grad,
        np.zeros(n_models + features.shape[1]),
        args=(n_models, model_a, model_b, features, labels, alpha, reg),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100, "gtol": tol},
    )
    return _checked(result, n_models + features.shape[1], tol)


def _checked(result: OptimizeResult, n_params: int, tol: float) -> FloatArray:
    """``result.x``; FitError when it is not finite or no step was taken from a start whose
    gradient was above ``tol`` (see :func:`vlmscope.ratings.fits.fit_checks.check_moved`)."""
    x = np.asarray(result.x, dtype=np.float64)
    slope = float(np.abs(result.jac).max(initial=0.0)) if result.nit == 0 else 0.0
    check_moved(np.zeros(n_params), x, slope, tol)
    return x
