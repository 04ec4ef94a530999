"""arena-hard-auto v2's style-controlled Bradley-Terry fit, run as it runs: torch, float32.

Upstream (``utils/math_utils.py`` ``fit_pairwise_model`` / ``bootstrap_pairwise_model``) builds
its features, outcomes and parameters in float32 and steps ``torch.optim.LBFGS(lr=0.1,
max_iter=50, tolerance_grad=1e-9, tolerance_change=1e-9)`` once from 0.5 on a summed
``binary_cross_entropy_with_logits``. Fifty unconverged steps amplify float32 rounding (and its
``tolerance_change`` test sees a float32 loss stop changing earlier than a float64 one does), so
a float64 re-implementation lands 0.1-0.2 points away on the printed scores of small boards.
Running the same torch operations in the same dtype and order reproduces the printed digits.

torch loads only when a style-controlled v2 board is scored. torch's thread count changes the
fit's last bits (it splits the products' sums differently, and fifty unconverged steps carry that
on): upstream's numbers depend on the cores of the machine that printed them. The fit here runs
on one thread (restored afterwards), so a board is the same on every machine; it matches
upstream run on one thread, and upstream's printed digits on the goldens at 1, 2 and 8 threads.
The setting is process-wide (a thread started meanwhile inherits it), so fits take turns: two
boards fitted at once in threads would otherwise each restore what the other had set.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.fits.fit_checks import FitError, require_finite, require_varying

if TYPE_CHECKING:
    import torch

Float32Array = NDArray[np.float32]
IntArray = NDArray[np.int64]

_ONE_THREAD = threading.Lock()
"""Held while a fit has torch on one thread, from reading the caller's setting to restoring it."""


def v2_float32_style_features(
    model_counts: NDArray[np.float64], baseline_counts: NDArray[np.float64], names: Sequence[str]
) -> Float32Array:
    """``print_leaderboard_with_style_features``' normalised features, op for op in float32, from
    each side's counts by position (rows of 4; the baseline's may be 2, its one density then
    broadcast): length ``(m - b) / (m + b)``, densities ``count / (tokens + 1)`` then
    ``(d_m - d_b) / (d_m + d_b + 1)``, minus the column mean over the column std (ddof 1)."""
    import torch

    model = torch.from_numpy(np.asarray(model_counts, dtype=np.float64)).to(torch.float32)
    base = torch.from_numpy(np.asarray(baseline_counts, dtype=np.float64)).to(torch.float32)
    features = torch.zeros_like(model)
    features[:, 0] = (model[:, 0] - base[:, 0]) / (model[:, 0] + base[:, 0])
    model_density = model[:, 1:] / (model[:, :1] + 1)
    base_density = base[:, 1:] / (base[:, :1] + 1)
    features[:, 1:] = (model_density - base_density) / (model_density + base_density + 1)
    require_finite(features.numpy(), "style feature (length: both answers have 0 tokens?)")
    if len(features) < 2:  # one row has no spread (torch would warn and give NaN)
        require_varying(np.zeros(features.shape[1]), names)
    std = torch.std(features, dim=0)
    require_varying(std.numpy(), names)
    standardised: Float32Array = ((features - torch.mean(features, dim=0)) / std).numpy()
    return standardised


def bootstrap_float32_bt(
    design: Float32Array, outcome: Float32Array, picks: IntArray
) -> Float32Array:
    """One fixed-step L-BFGS fit per row of ``picks`` (row indices into ``design``), stacked;
    on one torch thread (see the module docstring)."""
    import torch

    features = torch.from_numpy(np.ascontiguousarray(design, dtype=np.float32))
    outcomes = torch.from_numpy(np.ascontiguousarray(outcome, dtype=np.float32))
    with _ONE_THREAD:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            fits = [
                _fit(features[torch.from_numpy(rows)], outcomes[torch.from_numpy(rows)])
                for rows in picks
            ]
        finally:
            torch.set_num_threads(threads)
    coefs: Float32Array = torch.stack(fits).numpy()
    if not np.isfinite(coefs).all():
        raise FitError("the fit ended on NaN or infinite parameters")
    return coefs


def _fit(features: torch.Tensor, outcomes: torch.Tensor) -> torch.Tensor:
    """``fit_pairwise_model(features, outcomes, "bt")``: parameters from 0.5, one LBFGS step."""
    import torch
    from torch.nn.functional import binary_cross_entropy_with_logits

    params = torch.full((features.shape[1],), 0.5, dtype=torch.float32, requires_grad=True)
    optimizer = torch.optim.LBFGS(
        [params], lr=0.1, max_iter=50, tolerance_grad=1e-9, tolerance_change=1e-9
    )

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = binary_cross_entropy_with_logits(features @ params, outcomes, reduction="sum")
        loss.backward()
        return loss

    optimizer.step(closure)
    return params.detach()


def float32_win_rates(coefs: Float32Array, baseline_column: int) -> Float32Array:
    """``to_winrate_probabilities``: ``exp(c) / (exp(c) + exp(c_baseline))`` in float32."""
    import torch

    exp_coefs = torch.exp(torch.from_numpy(np.ascontiguousarray(coefs, dtype=np.float32)))
    probabilities: Float32Array = (
        exp_coefs / (exp_coefs + exp_coefs[:, baseline_column : baseline_column + 1])
    ).numpy()
    return probabilities
