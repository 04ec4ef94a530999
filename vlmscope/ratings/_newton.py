"""Exact, batched Newton solver for paired-comparison logistic models.

Model: ``logit P(a beats b) = alpha * (r_a - r_b) + features . beta`` with soft labels
(ties = 0.5), row weights and an optional L2 penalty ``reg / 2 * ||theta||^2`` on all
parameters. Bradley-Terry is the case without features and without penalty; FastChat
style control is ``reg = 0.5`` with four standardised style features.

Why Newton and not L-BFGS like the references: the loss is convex with a cheap exact
Hessian (the model block aggregates over model pairs), so 3-8 Newton steps reach machine
precision where L-BFGS stops at ``gtol``. Identical rows are merged once; a bootstrap
round is the same design with another weight vector, so many rounds are solved together
as a weight matrix (rounds x unique rows), warm-started from the full-data optimum.

Without penalty the ratings are identified only up to a constant per connected component
of the comparison graph. The references start at zero and their iterates stay in the
subspace where each component sums to zero; we add a tiny ridge to the Hessian (which
keeps steps in that subspace) and centre each component at the end, giving the same point.

Inputs must be finite and a fit must move off a start that is not optimal: otherwise
:class:`~vlmscope.ratings.fit_checks.FitError` (a NaN would otherwise leave every rating at
its start, i.e. every model at 1000).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import numpy as np
from scipy.special import log_expit

from vlmscope.ratings.battles import FloatArray, IntArray, MergedRows, merge_identical
from vlmscope.ratings.fit_checks import START_GRADIENT_TOL, check_moved, require_finite

_CHUNK_ELEMENTS = 1 << 18  # rounds x rows per batch: temporaries of ~2 MB stay in cache
_WORKERS = max(1, min(4, os.cpu_count() or 1))
_ARMIJO = 1e-4
_MAX_HALVINGS = 40
_STEP_TOL = 1e-4  # natural units; by quadratic convergence ~5e-8 is left after it


@dataclass(frozen=True)
class PairedDesign:
    """Unique rows sorted by (model_a, model_b, label, features); pairs are contiguous.

    Row i's logit is ``pair_incidence[pair(i)] . ratings + features[i] . coefs``.
    """

    n_models: int
    labels: FloatArray  # (U,)
    features: FloatArray  # (U, K)
    feature_products: FloatArray  # (U, K (K + 1) / 2), upper triangle of f f^T
    pair_starts: IntArray  # (P,) first unique row of each (a, b) block
    pair_sizes: IntArray  # (P,) unique rows in each block
    pair_incidence: FloatArray  # (P, M): +alpha at a, -alpha at b
    merged: MergedRows  # original rows -> unique rows
    alpha: float
    max_feature_l1: float  # largest sum of |features| in a row

    @property
    def n_params(self) -> int:
        return self.n_models + self.n_features

    @property
    def n_features(self) -> int:
        return int(self.features.shape[1])


def build_design(
    model_a: IntArray,
    model_b: IntArray,
    labels: FloatArray,
    features: FloatArray | None,
    weights: FloatArray | None,
    n_models: int,
    alpha: float,
) -> PairedDesign:
    """Merge identical rows (the key includes the feature values) and lay out the design.
    Raises FitError when an outcome, weight or feature is NaN or infinite."""
    feats = np.zeros((len(model_a), 0)) if features is None else np.asarray(features, float)
    require_finite(labels, "outcome")
    require_finite(feats, "style feature")
    if weights is not None:
        require_finite(weights, "weight")
    columns = [model_a, model_b, labels, *feats.T]
    merged = merge_identical(columns, weights)
    ua, ub = model_a[merged.first], model_b[merged.first]
    ufeats = feats[merged.first]
    n_unique = len(ua)
    new_pair = np.ones(n_unique, dtype=bool)
    new_pair[1:] = (ua[1:] != ua[:-1]) | (ub[1:] != ub[:-1])
    starts = np.flatnonzero(new_pair)
    incidence = np.zeros((len(starts), n_models))
    incidence[np.arange(len(starts)), ua[starts]] += alpha
    incidence[np.arange(len(starts)), ub[starts]] -= alpha
    iu = np.triu_indices(feats.shape[1])
    products = (ufeats[:, :, None] * ufeats[:, None, :])[:, iu[0], iu[1]]
    return PairedDesign(
        n_models=n_models,
        labels=np.asarray(labels, float)[merged.first],
        features=ufeats,
        feature_products=products,
        pair_starts=starts,
        pair_sizes=np.diff(np.append(starts, n_unique)),
        pair_incidence=incidence,
        merged=merged,
        alpha=alpha,
        max_feature_l1=float(np.abs(ufeats).sum(axis=1).max()) if ufeats.size else 0.0,
    )


def _loss(
    d: PairedDesign, theta: FloatArray, weights: FloatArray, wyx: FloatArray, reg: float
) -> FloatArray:
    """Penalised weighted log loss per round; ``wyx`` = ``_row_sums(weights * labels)``."""
    logits = _logits(d, theta)
    np.negative(logits, out=logits)
    log_expit(logits, out=logits)  # -softplus(logit)
    loss = -np.einsum("ru,ru->r", weights, logits) - np.einsum("rn,rn->r", wyx, theta)
    return loss + 0.5 * reg * np.einsum("rn,rn->r", theta, theta)


def _logits(d: PairedDesign, theta: FloatArray) -> FloatArray:
    """Row logits per round: the model part is constant within a pair block."""
    m = d.n_models
    logits = np.repeat(theta[:, :m] @ d.pair_incidence.T, d.pair_sizes, axis=1)
    if d.n_features:
        logits += theta[:, m:] @ d.features.T
    return logits


def _row_sums(d: PairedDesign, values: FloatArray) -> FloatArray:
    """``values @ X`` for the implicit design X (rounds x params)."""
    out = np.empty((values.shape[0], d.n_params))
    out[:, : d.n_models] = np.add.reduceat(values, d.pair_starts, axis=1) @ d.pair_incidence
    out[:, d.n_models :] = values @ d.features
    return out


def _grad_hess(
    d: PairedDesign, theta: FloatArray, weights: FloatArray, wyx: FloatArray, reg: float
) -> tuple[FloatArray, FloatArray]:
    """Gradient and Hessian per round.

    Probabilities come from numpy's vectorised ``exp``: with ``e = exp(-logit)``,
    ``p = 1 / (1 + e)`` and ``1 - p = e * p`` are both accurate in the tails. The model
    block is accumulated per model pair (rows are pair-sorted: one ``reduceat`` segment).
    """
    m, k = d.n_models, d.n_features
    e = _logits(d, theta)
    np.negative(e, out=e)
    with np.errstate(over="ignore"):
        np.exp(e, out=e)
    p = np.add(e, 1.0)
    np.reciprocal(p, out=p)
    np.multiply(e, p, out=e)  # 1 - p
    wp = np.multiply(weights, p, out=p)
    grad = _row_sums(d, wp)
    grad += reg * theta - wyx
    curvature = np.multiply(wp, e, out=e)  # w p (1 - p)
    hess = np.empty((theta.shape[0], m + k, m + k))
    pair_curv = np.add.reduceat(curvature, d.pair_starts, axis=1)
    hess[:, :m, :m] = d.pair_incidence.T @ (pair_curv[:, :, None] * d.pair_incidence)
    for j in range(k):
        np.multiply(curvature, d.features[:, j], out=wp)
        cross = np.add.reduceat(wp, d.pair_starts, axis=1) @ d.pair_incidence
        hess[:, :m, m + j] = cross
        hess[:, m + j, :m] = cross
    iu = np.triu_indices(k)
    ff = curvature @ d.feature_products
    hess[:, m + iu[0], m + iu[1]] = ff
    hess[:, m + iu[1], m + iu[0]] = ff
    diag = np.arange(m + k)
    hess[:, diag, diag] += reg
    if reg == 0.0:  # gauge ridge: keeps Newton steps orthogonal to the null space
        scale = np.abs(hess[:, diag[:m], diag[:m]]).mean(axis=1, keepdims=True)
        hess[:, diag[:m], diag[:m]] += 1e-10 * scale + 1e-300
    return grad, hess


def _max_logit_change(d: PairedDesign, step: FloatArray) -> FloatArray:
    """Upper bound on how much any row's logit moves under ``step`` (per round)."""
    m = d.n_models
    bound = 2.0 * d.alpha * np.abs(step[:, :m]).max(axis=1)
    if d.n_features:
        bound += d.max_feature_l1 * np.abs(step[:, m:]).max(axis=1)
    return bound


def _line_search(
    d: PairedDesign,
    theta: FloatArray,
    rows: IntArray,
    step: FloatArray,
    grad: FloatArray,
    weights: FloatArray,
    wyx: FloatArray,
    reg: float,
) -> IntArray:
    """Backtracking (Armijo) along ``-step`` for ``rows``; updates ``theta`` in place.
    Returns the rows where no decrease was found (converged to rounding level)."""
    loss = _loss(d, theta[rows], weights[rows], wyx[rows], reg)
    slope = np.einsum("rn,rn->r", grad, step)
    t = np.ones(len(rows))
    pending = np.arange(len(rows))
    for _ in range(_MAX_HALVINGS):
        sub = rows[pending]
        trial = theta[sub] - t[pending, None] * step[pending]
        new_loss = _loss(d, trial, weights[sub], wyx[sub], reg)
        slack = 1e-13 * np.abs(loss[pending])
        ok = new_loss <= loss[pending] - _ARMIJO * t[pending] * slope[pending] + slack
        theta[sub[ok]] = trial[ok]
        pending = pending[~ok]
        if not len(pending):
            break
        t[pending] *= 0.5
    return rows[pending]


def _solve_chunk(
    d: PairedDesign, weights: FloatArray, start: FloatArray, reg: float, tol: float, max_iter: int
) -> FloatArray:
    """Damped Newton per round. A full step is taken without evaluating the loss when no
    logit moves by more than 0.5: the logistic curvature then changes by at most e^0.5
    along the step, which guarantees a decrease. Larger steps (cold starts, separated
    models) are backtracked on the loss. A round that stays at its start although the
    gradient there is not ~0 raises FitError (see :func:`check_moved`)."""
    theta = start.copy()
    wyx = _row_sums(d, weights * d.labels)
    total = weights.sum(axis=1)
    gtol = tol * np.maximum(total, 1.0)
    active = np.ones(len(theta), dtype=bool)
    start_gradient = None
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if not len(idx):
            break
        grad, hess = _grad_hess(d, theta[idx], weights[idx], wyx[idx], reg)
        if start_gradient is None:  # every round is active on the first pass
            start_gradient = np.abs(grad).max(axis=1, initial=0.0)
        done = np.abs(grad).max(axis=1) <= gtol[idx]
        step = np.asarray(np.linalg.solve(hess, grad[:, :, None])[:, :, 0], dtype=np.float64)
        tiny = np.abs(step).max(axis=1) <= _STEP_TOL
        full = ~done & (tiny | (_max_logit_change(d, step) <= 0.5))
        theta[idx[full]] -= step[full]
        active[idx[done | tiny]] = False
        risky = ~done & ~full
        if risky.any():
            stalled = _line_search(
                d, theta, idx[risky], step[risky], grad[risky], weights, wyx, reg
            )
            active[stalled] = False
    if start_gradient is not None:
        check_moved(start, theta, start_gradient, START_GRADIENT_TOL * np.maximum(total, 1.0))
    return theta


@cache
def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # optional: without it BLAS keeps its default threads
        return None
    return ThreadpoolController()


def _single_threaded_blas() -> AbstractContextManager[object]:
    """Parallelism comes from our threads over chunks; BLAS's own threads on these
    skinny or small products oversubscribe the cores (busy-waiting) and ran 5-20x slower
    in measurements on a busy 2-core machine. The switch costs microseconds."""
    controller = _blas_controller()
    if controller is None:
        return nullcontext()
    return cast(AbstractContextManager[object], controller.limit(limits=1, user_api="blas"))


def newton_solve(
    d: PairedDesign,
    weights: FloatArray,
    start: FloatArray | None = None,
    reg: float = 0.0,
    tol: float = 1e-11,
    max_iter: int = 100,
) -> FloatArray:
    """Minimise the weighted loss for every row of ``weights`` (rounds x unique rows).

    Stops a round when its gradient's largest entry is below ``tol`` times the round's
    total weight, or after taking a Newton step below 1e-4 (natural units; by quadratic convergence
    the error left is ~5e-8, i.e. 2e-5 rating points). Rounds are solved in
    cache-sized chunks on a few threads (numpy releases the GIL). Returns parameters
    (rounds x (models + features)); without penalty each connected component of a
    round's comparison graph has ratings summing to zero.
    """
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    n_rounds = w.shape[0]
    if w.shape[1] == 0:  # no battles: every rating stays at the origin
        return np.zeros((n_rounds, d.n_params))
    x0 = (
        np.zeros((n_rounds, d.n_params))
        if start is None
        else np.broadcast_to(start, (n_rounds, d.n_params))
    )
    chunk = max(1, _CHUNK_ELEMENTS // max(1, w.shape[1]))
    bounds = [(lo, min(lo + chunk, n_rounds)) for lo in range(0, n_rounds, chunk)]
    theta = np.empty((n_rounds, d.n_params))

    def solve(bound: tuple[int, int]) -> None:
        lo, hi = bound
        theta[lo:hi] = _solve_chunk(d, w[lo:hi], np.array(x0[lo:hi]), reg, tol, max_iter)

    workers = min(_WORKERS, len(bounds))
    with _single_threaded_blas():
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(solve, bounds))
        else:
            for bound in bounds:
                solve(bound)
    if reg == 0.0:
        theta[:, : d.n_models] = center_components(d, w, theta[:, : d.n_models])
    return theta


def center_components(d: PairedDesign, weights: FloatArray, ratings: FloatArray) -> FloatArray:
    """Shift each connected component of each round's comparison graph to mean zero."""
    n_rounds, m = ratings.shape
    pair_weight = np.add.reduceat(weights, d.pair_starts, axis=1)
    a = np.argmax(d.pair_incidence > 0, axis=1)
    b = np.argmax(d.pair_incidence < 0, axis=1)
    rounds, pairs = np.nonzero(pair_weight > 0)
    labels = np.tile(np.arange(m), (n_rounds, 1))
    for _ in range(m):  # label propagation: each component ends with its smallest model id
        low = np.minimum(labels[rounds, a[pairs]], labels[rounds, b[pairs]])
        before = labels.copy()
        np.minimum.at(labels, (rounds, a[pairs]), low)
        np.minimum.at(labels, (rounds, b[pairs]), low)
        if np.array_equal(before, labels):
            break
    flat = (labels + (np.arange(n_rounds) * m)[:, None]).ravel()
    sums = np.bincount(flat, ratings.ravel(), minlength=n_rounds * m)
    sizes = np.bincount(flat, minlength=n_rounds * m)
    return ratings - (sums / np.maximum(sizes, 1))[flat].reshape(n_rounds, m)
