"""L-BFGS with a fixed step and an iteration cap: a numpy port of ``torch.optim.LBFGS``.

arena-hard-auto v2 fits its style-controlled Bradley-Terry model with
``torch.optim.LBFGS(lr=0.1, max_iter=50, tolerance_grad=1e-9, tolerance_change=1e-9)`` and no
line search, started from 0.5 and stepped once. Fifty fixed steps stop short of the optimum
(by up to ~0.3 win-rate points), so an exact solver does not reproduce its numbers; this port
follows torch's update rules step by step (history 100, first step scaled by
``min(1, 1/|g|_1)``, the same stopping tests) in float64 instead of float32. A loss that is not
finite at the start, or parameters that end non-finite, raise ``FitError``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.fits.fit_checks import FitError

FloatArray = NDArray[np.float64]
LossAndGradient = Callable[[FloatArray], tuple[float, FloatArray]]


def minimize_fixed_step_lbfgs(
    loss_and_gradient: LossAndGradient,
    start: FloatArray,
    learning_rate: float = 0.1,
    max_iter: int = 50,
    tolerance_grad: float = 1e-9,
    tolerance_change: float = 1e-9,
    history_size: int = 100,
) -> FloatArray:
    """Run one ``torch.optim.LBFGS.step`` (``line_search_fn=None``) and return the parameters."""
    params = np.array(start, dtype=np.float64)
    max_eval = max_iter * 5 // 4
    loss, grad = loss_and_gradient(params)
    if not (np.isfinite(loss) and np.isfinite(grad).all()):
        raise FitError("the loss is not finite at the start: NaN or infinite inputs")
    evaluations = 1
    if np.abs(grad).max() <= tolerance_grad:
        return params
    old_dirs: list[FloatArray] = []
    old_steps: list[FloatArray] = []
    inverse_curvatures: list[float] = []
    hessian_diag = 1.0
    direction = -grad
    step = 0.0
    prev_grad = grad
    for iteration in range(1, max_iter + 1):
        if iteration > 1:
            grad_change = grad - prev_grad
            last_step = direction * step
            curvature = float(grad_change @ last_step)
            if curvature > 1e-10:
                if len(old_dirs) == history_size:
                    old_dirs.pop(0)
                    old_steps.pop(0)
                    inverse_curvatures.pop(0)
                old_dirs.append(grad_change)
                old_steps.append(last_step)
                inverse_curvatures.append(1.0 / curvature)
                hessian_diag = curvature / float(grad_change @ grad_change)
            direction = _two_loop(grad, old_dirs, old_steps, inverse_curvatures, hessian_diag)
        prev_grad, prev_loss = grad, loss
        if iteration == 1:
            step = min(1.0, 1.0 / float(np.abs(grad).sum())) * learning_rate
        else:
            step = learning_rate
        if float(grad @ direction) > -tolerance_change:
            break
        params = params + step * direction
        if iteration == max_iter:
            break
        loss, grad = loss_and_gradient(params)
        evaluations += 1
        if evaluations >= max_eval or np.abs(grad).max() <= tolerance_grad:
            break
        if np.abs(direction * step).max() <= tolerance_change:
            break
        if abs(loss - prev_loss) < tolerance_change:
            break
    if not np.isfinite(params).all():
        raise FitError("the fit ended on NaN or infinite parameters")
    return params


def _two_loop(
    grad: FloatArray,
    old_dirs: list[FloatArray],
    old_steps: list[FloatArray],
    inverse_curvatures: list[float],
    hessian_diag: float,
) -> FloatArray:
    """The L-BFGS two-loop recursion: approximate ``-H^{-1} grad`` from the stored pairs."""
    q = -grad
    alphas = [0.0] * len(old_dirs)
    for i in range(len(old_dirs) - 1, -1, -1):
        alphas[i] = float(old_steps[i] @ q) * inverse_curvatures[i]
        q = q - alphas[i] * old_dirs[i]
    r = q * hessian_diag
    for i in range(len(old_dirs)):
        beta = float(old_dirs[i] @ r) * inverse_curvatures[i]
        r = r + (alphas[i] - beta) * old_steps[i]
    return r
