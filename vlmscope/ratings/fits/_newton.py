"""Exact, batched Newton solver for paired-comparison logistic models.

Minimises the weighted log loss of a :class:`~vlmscope.ratings.fits._paired_design.PairedDesign`
plus an optional L2 penalty ``reg / 2 * ||theta||^2`` on all parameters. Bradley-Terry is
the case without features and without penalty; FastChat style control is ``reg = 0.5`` with
four standardised style features. This module holds the iteration (steps, line search,
stopping), the threads over chunks of rounds, and the centring of the result; the loss,
gradient and Hessian it evaluates are in :mod:`vlmscope.ratings.fits._paired_passes`.

Why Newton and not L-BFGS like the references: the loss is convex with a cheap exact
Hessian (the model block aggregates over model pairs), so 3-8 Newton steps reach machine
precision where L-BFGS stops at ``gtol``. A bootstrap round is the same design with another
weight vector, so many rounds are solved together as a weight matrix (rounds x unique rows),
warm-started from the full-data optimum. The weight matrix may hold small integers
(bootstrap counts as ``uint8``): it is only read, a block at a time, and a 100-round matrix
over millions of rows stays small.

Without penalty the ratings are identified only up to a constant per connected component
of the comparison graph. The references start at zero and their iterates stay in the
subspace where each component sums to zero; the passes add a tiny ridge to the Hessian
(which keeps steps in that subspace) and :func:`center_components` centres each component
at the end, giving the same point.

A fit must move off a start that is not optimal: otherwise
:class:`~vlmscope.ratings.fits.fit_checks.FitError` (see :func:`check_moved`).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import numpy as np

from vlmscope.ratings.fits._paired_design import PairedDesign, Weights
from vlmscope.ratings.fits._paired_passes import _grad_hess, _label_sums, _loss
from vlmscope.ratings.fits.fit_checks import START_GRADIENT_TOL, check_moved
from vlmscope.ratings.inputs.battles import FloatArray, IntArray

_CHUNK_ELEMENTS = 1 << 19  # rounds x rows solved together (one thread's task)
_MIN_CHUNK_ROUNDS = 8
_WORKERS = max(1, min(4, os.cpu_count() or 1))
_thread_cap = threading.local()


@contextmanager
def solver_threads(count: int) -> Iterator[None]:
    """Let :func:`newton_solve` calls made in this thread use at most ``count`` threads. A caller
    that already fits several boards side by side sets 1: threads nested inside each fit only
    contend for the GIL and the cores (measured 10% slower on 2 cores). Results do not depend
    on the thread count."""
    previous = getattr(_thread_cap, "count", None)
    _thread_cap.count = max(1, count)
    try:
        yield
    finally:
        _thread_cap.count = previous


_ARMIJO = 1e-4
_MAX_HALVINGS = 40
_STEP_TOL = 1e-4  # natural units; by quadratic convergence ~5e-8 is left after it
# After steps this small (natural units) the Hessian has changed by about as little: the next
# pass computes the gradient only and reuses it (the step then errs by ~1e-2 of itself).
_LAZY_HESSIAN_STEP = 1e-2


@dataclass(frozen=True)
class LazyChunk:
    """``rounds`` rounds of weights that ``make`` builds in the solving thread (a bootstrap hands
    over its draws; counting them is part of the parallel work)."""

    rounds: int
    make: Callable[[], Weights]


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
    weights: Weights,
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
    d: PairedDesign, weights: Weights, start: FloatArray, reg: float, tol: float, max_iter: int
) -> FloatArray:
    """Damped Newton per round. A full step is taken without evaluating the loss when no
    logit moves by more than 0.5: the logistic curvature then changes by at most e^0.5
    along the step, which guarantees a decrease. Larger steps (cold starts, separated
    models) are backtracked on the loss. Once every active round's last step was below
    ``_LAZY_HESSIAN_STEP`` the previous Hessians are reused (a pass then costs about half).
    A round that stays at its start although the gradient there is not ~0 raises FitError
    (see :func:`check_moved`)."""
    theta = start.copy()
    wyx = _label_sums(d, weights)
    total = weights.sum(axis=1, dtype=np.float64)
    gtol = tol * np.maximum(total, 1.0)
    active = np.ones(len(theta), dtype=bool)
    start_gradient = None
    hessians = np.empty((len(theta), d.n_params, d.n_params))
    last_step = np.full(len(theta), np.inf)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if not len(idx):
            break
        everyone = len(idx) == len(theta)
        fresh = bool(last_step[idx].max() > _LAZY_HESSIAN_STEP)
        grad, hess = _grad_hess(
            d,
            theta if everyone else theta[idx],
            weights if everyone else weights[idx],
            wyx if everyone else wyx[idx],
            reg,
            hessian=fresh,
        )
        if hess is None:  # every round's last step was small: its Hessian is still good
            hess = hessians[idx]
        else:
            hessians[idx] = hess
        if start_gradient is None:  # every round is active on the first pass
            start_gradient = np.abs(grad).max(axis=1, initial=0.0)
        done = np.abs(grad).max(axis=1) <= gtol[idx]
        step = np.asarray(np.linalg.solve(hess, grad[:, :, None])[:, :, 0], dtype=np.float64)
        last_step[idx] = np.abs(step).max(axis=1)
        tiny = last_step[idx] <= _STEP_TOL
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


def _as_weights(weights: Any) -> Weights:
    """Rounds x rows; unsigned integer counts are kept as they are, anything else is float64."""
    w = np.atleast_2d(np.asarray(weights))
    if w.dtype.kind == "u":
        return w
    return np.asarray(w, dtype=np.float64)


def _rounds(chunk: Weights | LazyChunk) -> int:
    return chunk.rounds if isinstance(chunk, LazyChunk) else int(chunk.shape[0])


def rounds_per_chunk(n_rounds: int, n_rows: int) -> int:
    """How many rounds are solved together: chunks of about ``_CHUNK_ELEMENTS`` rounds x rows,
    each of at least ``_MIN_CHUNK_ROUNDS`` rounds (so the products in a pass are matrix
    products). Depends on the problem's size only, never on the machine."""
    chunks = -(-n_rounds * max(1, n_rows) // _CHUNK_ELEMENTS)
    chunks = max(1, min(chunks, n_rounds // _MIN_CHUNK_ROUNDS))
    return -(-n_rounds // chunks)


def newton_solve(
    d: PairedDesign,
    weights: Any,
    start: FloatArray | None = None,
    reg: float = 0.0,
    tol: float = 1e-11,
    max_iter: int = 100,
    *,
    n_rounds: int | None = None,
) -> FloatArray:
    """Minimise the weighted loss for every row of ``weights`` (rounds x unique rows; float, or
    unsigned integer counts).

    ``weights`` may also be an iterable of consecutive chunks of rounds (``n_rounds`` in all,
    each chunk ``rounds_per_chunk(n_rounds, rows)`` rounds but the last; arrays or
    :class:`LazyChunk`): a chunk is solved as soon as it is produced, so a bootstrap draws its
    next rounds while the last ones are solved (at most one chunk ahead of the solving threads).

    Stops a round when its gradient's largest entry is below ``tol`` times the round's
    total weight, or after taking a Newton step below 1e-4 (natural units; by quadratic convergence
    the error left is ~5e-8, i.e. 2e-5 rating points). Chunks of rounds are solved on a few
    threads (numpy releases the GIL); each walks the rows in cache-sized blocks. Returns
    parameters (rounds x (models + features)); without penalty each connected component of a
    round's comparison graph has ratings summing to zero.
    """
    if isinstance(weights, np.ndarray) or n_rounds is None:
        w = _as_weights(weights)
        n_rounds = w.shape[0]
        step = rounds_per_chunk(n_rounds, w.shape[1])
        chunks: Iterator[Weights | LazyChunk] = (
            w[lo : lo + step] for lo in range(0, n_rounds, step)
        )
        n_chunks = -(-n_rounds // step)
    else:
        chunks = iter(weights)
        n_chunks = -(-n_rounds // rounds_per_chunk(n_rounds, d.n_rows))
    theta = np.zeros((n_rounds, d.n_params))
    x0 = np.zeros(d.n_params) if start is None else np.asarray(start, dtype=np.float64)

    def solve(lo: int, chunk: Weights | LazyChunk) -> None:
        w = _as_weights(chunk.make() if isinstance(chunk, LazyChunk) else chunk)
        hi = lo + w.shape[0]
        if d.n_rows == 0:  # no battles: every rating stays at the origin
            return
        x = np.array(np.broadcast_to(x0, (hi - lo, d.n_params)))
        theta[lo:hi] = _solve_chunk(d, w, x, reg, tol, max_iter)
        if reg == 0.0:
            theta[lo:hi, : d.n_models] = center_components(d, w, theta[lo:hi, : d.n_models])

    workers = min(_WORKERS, n_chunks, getattr(_thread_cap, "count", None) or _WORKERS)
    with _single_threaded_blas():
        lo = 0
        if workers == 1:
            for chunk in chunks:
                solve(lo, chunk)
                lo += _rounds(chunk)
            return theta
        with ThreadPoolExecutor(workers) as pool:
            pending: deque[Future[None]] = deque()
            for chunk in chunks:
                pending.append(pool.submit(solve, lo, chunk))
                lo += _rounds(chunk)
                while len(pending) > workers:  # bounded look-ahead: draws wait for solves
                    pending.popleft().result()
            for future in pending:
                future.result()
    return theta


def center_components(d: PairedDesign, weights: Weights, ratings: FloatArray) -> FloatArray:
    """Shift each connected component of each round's comparison graph to mean zero."""
    n_rounds, m = ratings.shape
    pair_weight = np.add.reduceat(weights, d.pair_starts, axis=1, dtype=np.float64)
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
