"""Logistic regression solved the way scikit-learn's ``lbfgs`` solver does it, without sklearn.

arena-hard-auto v0.1 and ProBench fit style-controlled Bradley-Terry with
``LogisticRegression(fit_intercept=False)`` (L2, ``C = 1``, ``tol = 1e-4``, 100 iterations).
That tolerance applies to the gradient of the *mean* loss, so the solver stops visibly short of
the optimum: an exact solver lands up to ~0.1 Elo and ~8e-4 in the style coefficients away, and
ProBench then truncates the Elo to an int and derives its win rate from that int. Reproducing
its numbers therefore means reproducing its optimiser, which is a plain scipy L-BFGS-B call:

``minimize(mean log-loss + (1 / (2 C n)) ||w||^2, x0 = 0, jac=True, method="L-BFGS-B",
options={maxiter, maxls: 50, gtol: tol, ftol: 64 * eps})`` (scikit-learn >= 1.2 scales the
objective by the number of rows; the rows are unweighted here, as upstream).

Non-finite inputs, or an optimiser that took no step from a start that is not optimal, raise
``FitError`` (:mod:`vlmscope.ratings.fits.fit_checks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.fits.fit_checks import check_moved, require_finite

if TYPE_CHECKING:
    from scipy.optimize import OptimizeResult

# scipy is imported by the function that runs the optimiser (1-2 s), not with this module: the
# boards that import it for one preset must not make every other board pay for it.

FloatArray = NDArray[np.float64]


def fit_logistic_lbfgs(
    design: FloatArray,
    labels: FloatArray,
    inverse_regularisation: float | None = 1.0,
    tol: float = 1e-4,
    max_iter: int = 100,
) -> FloatArray:
    """Coefficients of ``LogisticRegression(fit_intercept=False, C=..., tol=..., max_iter=...)``.

    ``inverse_regularisation`` is sklearn's ``C``; ``None`` means ``penalty=None``. ``labels``
    are 0/1 (the references duplicate rows to express ties).
    """
    from scipy.optimize import minimize
    from scipy.special import expit

    n_rows = design.shape[0]
    require_finite(design, "design")
    require_finite(labels, "label")
    l2_strength = 0.0 if inverse_regularisation is None else 1.0 / (inverse_regularisation * n_rows)

    def loss_and_gradient(coef: FloatArray) -> tuple[float, FloatArray]:
        raw = design @ coef
        loss = float((np.logaddexp(0.0, raw) - labels * raw).sum()) / n_rows
        gradient: FloatArray = design.T @ (expit(raw) - labels) / n_rows
        return loss + 0.5 * l2_strength * float(coef @ coef), gradient + l2_strength * coef

    result = minimize(
        loss_and_gradient,
        np.zeros(design.shape[1]),
        method="L-BFGS-B",
        jac=True,
        options={"maxiter": max_iter, "maxls": 50, "gtol": tol, "ftol": 64 * np.finfo(float).eps},
    )
    coefficients: FloatArray = result.x
    check_moved(np.zeros(design.shape[1]), coefficients, _start_slope(result), tol)
    return coefficients


def _start_slope(result: OptimizeResult) -> float:
    """The largest gradient entry at the start when the optimiser took no step (its final
    gradient is then the start's), else 0: a fit that moved is not checked for stalling."""
    return float(np.abs(result.jac).max(initial=0.0)) if result.nit == 0 else 0.0
