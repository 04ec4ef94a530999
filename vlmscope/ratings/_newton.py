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
The weight matrix may hold small integers (bootstrap counts as ``uint8``): it is only
read, a block at a time, and a 100-round matrix over millions of rows stays small.

How a pass over the rows is laid out (it is all the time a fit takes): rows are sorted by
model pair, and a pass walks cache-sized blocks of rows for every round at once. In a block
the logits are one matrix product (features x coefficients) plus the pair's rating
difference, then one ``exp`` gives p and p (1 - p). Every sum the gradient and the Hessian
need is, per pair segment of the block, one matrix product of the weighted values with the
rows' ``[1, features, feature products]`` (``PairedDesign.basis``); segments too short for a
product of their own are summed with ``reduceat`` instead.

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
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.battles import FloatArray, IntArray, MergedRows, merge_identical
from vlmscope.ratings.fit_checks import START_GRADIENT_TOL, check_moved, require_finite

_BLOCK_ELEMENTS = 1 << 17  # rounds x rows per block: float64 temporaries of 1 MB stay in cache
_MIN_BLOCK_ROWS = 256
_SEGMENT_GEMM_ROWS = 512  # a block whose pair segments average this many rows: one product each
_CHUNK_ELEMENTS = 1 << 19  # rounds x rows solved together (one thread's task)
_MIN_CHUNK_ROUNDS = 8
_WORKERS = max(1, min(4, os.cpu_count() or 1))
_MAX_NEG_LOGIT = 700.0
"""Cap on -logit before exp (e^709 is the largest double)."""
_ARMIJO = 1e-4
_MAX_HALVINGS = 40
_STEP_TOL = 1e-4  # natural units; by quadratic convergence ~5e-8 is left after it
# After steps this small (natural units) the Hessian has changed by about as little: the next
# pass computes the gradient only and reuses it (the step then errs by ~1e-2 of itself).
_LAZY_HESSIAN_STEP = 1e-2

Weights = NDArray[Any]  # rounds x unique rows, float64 or an unsigned integer type


@dataclass(frozen=True)
class LazyChunk:
    """``rounds`` rounds of weights that ``make`` builds in the solving thread (a bootstrap hands
    over its draws; counting them is part of the parallel work)."""

    rounds: int
    make: Callable[[], Weights]


@dataclass(frozen=True)
class _Block:
    """Rows ``lo:hi`` of the design and the pair segments they fall into."""

    lo: int
    hi: int
    starts: IntArray  # segment starts, relative to lo (for reduceat)
    ends: IntArray  # segment ends, relative to lo
    pairs: IntArray  # pair of each segment (distinct within a block)
    products: bool  # one matrix product per segment (else reduceat)


@dataclass(frozen=True)
class PairedDesign:
    """Unique rows sorted by (model_a, model_b, label, features); pairs are contiguous.

    Row i's logit is ``pair_incidence[pair(i)] . ratings + features[i] . coefs``.
    ``basis`` holds per row ``[1, features, upper triangle of features features^T]``;
    ``features`` and ``feature_products`` are views into it.
    """

    n_models: int
    labels: FloatArray  # (U,)
    basis: FloatArray  # (U, 1 + K + K (K + 1) / 2)
    pair_starts: IntArray  # (P,) first unique row of each (a, b) block
    pair_sizes: IntArray  # (P,) unique rows in each block
    pair_incidence: FloatArray  # (P, M): +alpha at a, -alpha at b
    merged: MergedRows  # original rows -> unique rows
    alpha: float
    max_feature_l1: float  # largest sum of |features| in a row
    n_features: int
    features_t: FloatArray  # (K, U): the features again, one contiguous row per feature
    pair_a: IntArray  # (P,) model_a of each pair
    pair_b: IntArray  # (P,) model_b of each pair
    _blocks: dict[int, list[_Block]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_params(self) -> int:
        return self.n_models + self.n_features

    @property
    def n_rows(self) -> int:
        return int(self.labels.shape[0])

    @property
    def features(self) -> FloatArray:
        return self.basis[:, 1 : 1 + self.n_features]

    @property
    def feature_products(self) -> FloatArray:
        return self.basis[:, 1 + self.n_features :]

    def blocks(self, n_rounds: int) -> list[_Block]:
        """Row blocks for passes over ``n_rounds`` rounds (cached per block size)."""
        rows = max(_MIN_BLOCK_ROWS, _BLOCK_ELEMENTS // max(1, n_rounds))
        rows = 1 << (rows.bit_length() - 1)  # a power of two: few distinct layouts
        if rows not in self._blocks:
            self._blocks[rows] = _layout(self.pair_starts, self.n_rows, rows)
        return self._blocks[rows]


def _layout(pair_starts: IntArray, n_rows: int, rows: int) -> list[_Block]:
    blocks = []
    for lo in range(0, n_rows, rows):
        hi = min(lo + rows, n_rows)
        first = int(np.searchsorted(pair_starts, lo, side="right")) - 1
        last = int(np.searchsorted(pair_starts, hi, side="left"))
        starts = np.maximum(pair_starts[first:last], lo) - lo
        ends = np.append(starts[1:], hi - lo)
        n_segments = len(starts)
        blocks.append(
            _Block(
                lo,
                hi,
                starts.astype(np.intp),
                ends.astype(np.intp),
                np.arange(first, last, dtype=np.intp),
                (hi - lo) >= _SEGMENT_GEMM_ROWS * n_segments,
            )
        )
    return blocks


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
    n_unique, k = len(ua), feats.shape[1]
    new_pair = np.ones(n_unique, dtype=bool)
    new_pair[1:] = (ua[1:] != ua[:-1]) | (ub[1:] != ub[:-1])
    starts = np.flatnonzero(new_pair)
    incidence = np.zeros((len(starts), n_models))
    incidence[np.arange(len(starts)), ua[starts]] += alpha
    incidence[np.arange(len(starts)), ub[starts]] -= alpha
    iu = np.triu_indices(k)
    basis = np.empty((n_unique, 1 + k + len(iu[0])))
    basis[:, 0] = 1.0
    ufeats = basis[:, 1 : 1 + k]
    np.take(feats, merged.first, axis=0, out=ufeats)
    for column, (i, j) in enumerate(zip(*iu, strict=True), start=1 + k):
        np.multiply(ufeats[:, i], ufeats[:, j], out=basis[:, column])
    return PairedDesign(
        n_models=n_models,
        labels=np.asarray(labels, float)[merged.first],
        basis=basis,
        pair_starts=starts,
        pair_sizes=np.diff(np.append(starts, n_unique)),
        pair_incidence=incidence,
        merged=merged,
        alpha=alpha,
        max_feature_l1=float(np.abs(ufeats).sum(axis=1).max()) if ufeats.size else 0.0,
        n_features=k,
        features_t=np.ascontiguousarray(ufeats.T),
        pair_a=ua[starts],
        pair_b=ub[starts],
    )


def _neg_logits(
    d: PairedDesign, block: _Block, neg_pair: FloatArray, neg_coef: FloatArray
) -> FloatArray:
    """Minus the logits of the block's rows, per round (rounds x rows): one product for the
    features, then each pair segment's rating difference."""
    lo, hi = block.lo, block.hi
    out = np.empty((neg_pair.shape[0], hi - lo))
    if d.n_features:
        np.matmul(neg_coef, d.features_t[:, lo:hi], out=out)
        if block.products:  # long segments: a broadcast add each
            for a, b, p in zip(
                block.starts.tolist(), block.ends.tolist(), block.pairs.tolist(), strict=True
            ):
                out[:, a:b] += neg_pair[:, p : p + 1]
        else:
            out += np.repeat(neg_pair[:, block.pairs], block.ends - block.starts, axis=1)
    else:
        out[:] = np.repeat(neg_pair[:, block.pairs], block.ends - block.starts, axis=1)
    return out


class _Sums:
    """Per round: sums of values per pair and of values times each feature, and, for the
    Hessian (``second``), per pair times each feature and times each feature product;
    assembled into a gradient or a Hessian."""

    def __init__(self, d: PairedDesign, n_rounds: int, second: bool) -> None:
        k = d.n_features
        self.d = d
        self.pair = np.zeros((n_rounds, len(d.pair_starts)))
        self.feature = np.zeros((n_rounds, k))
        self.cross = np.zeros((n_rounds, len(d.pair_starts), k)) if second else None
        self.ff = np.zeros((n_rounds, d.basis.shape[1] - 1 - k)) if second else None

    def add(self, block: _Block, values: FloatArray) -> None:
        d, lo, hi, pairs = self.d, block.lo, block.hi, block.pairs
        k = d.n_features
        if block.products and k:  # long segments: one product each with [1, f, (f f)]
            width = d.basis.shape[1] if self.ff is not None else 1 + k
            out = np.empty((len(pairs), values.shape[0], width))
            starts, ends = block.starts.tolist(), block.ends.tolist()
            for s, (a, b) in enumerate(zip(starts, ends, strict=True)):
                np.matmul(values[:, a:b], d.basis[lo + a : lo + b, :width], out=out[s])
            self.pair[:, pairs] += out[:, :, 0].T
            self.feature += out[:, :, 1 : 1 + k].sum(axis=0)
            if self.cross is not None and self.ff is not None:
                self.cross[:, pairs, :] += out[:, :, 1 : 1 + k].transpose(1, 0, 2)
                self.ff += out[:, :, 1 + k :].sum(axis=0)
            return
        self.pair[:, pairs] += np.add.reduceat(values, block.starts, axis=1)
        if not k:
            return
        self.feature += values @ d.features[lo:hi]
        if self.cross is not None and self.ff is not None:
            for j in range(k):
                weighted = values * d.features_t[j, lo:hi]
                self.cross[:, pairs, j] += np.add.reduceat(weighted, block.starts, axis=1)
            self.ff += values @ d.feature_products[lo:hi]

    def gradient(self) -> FloatArray:
        """``values @ X`` for the implicit design X (rounds x params)."""
        d = self.d
        out = np.empty((self.pair.shape[0], d.n_params))
        out[:, : d.n_models] = self.pair @ d.pair_incidence
        out[:, d.n_models :] = self.feature
        return out

    def hessian(self, reg: float) -> FloatArray:
        """``X^T diag(values) X`` per round, plus ``reg`` on the diagonal."""
        d, cross, ff = self.d, self.cross, self.ff
        assert cross is not None and ff is not None
        m, k = d.n_models, d.n_features
        inc = d.pair_incidence
        n_rounds = self.pair.shape[0]
        hess = np.empty((n_rounds, m + k, m + k))
        # Pair p adds alpha^2 c_p at (a, a) and (b, b) and subtracts it at (a, b) and (b, a).
        by_pair = np.zeros((n_rounds, m * m))
        by_pair[:, d.pair_a * m + d.pair_b] = self.pair  # (a, b) pairs are distinct
        block = by_pair.reshape(n_rounds, m, m)
        model = hess[:, :m, :m]
        np.add(block, block.transpose(0, 2, 1), out=model)
        np.negative(model, out=model)
        diag = np.arange(m)
        model[:, diag, diag] -= model.sum(axis=2)  # the row sums of -(C + C^T), negated
        model *= d.alpha * d.alpha
        for j in range(k):
            column = cross[:, :, j] @ inc
            hess[:, :m, m + j] = column
            hess[:, m + j, :m] = column
        iu = np.triu_indices(k)
        hess[:, m + iu[0], m + iu[1]] = ff
        hess[:, m + iu[1], m + iu[0]] = ff
        every = np.arange(m + k)
        hess[:, every, every] += reg
        return hess


def _split(d: PairedDesign, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Minus the pair rating differences (rounds x pairs) and minus the coefficients."""
    m = d.n_models
    return -(theta[:, :m] @ d.pair_incidence.T), -theta[:, m:]


def _label_sums(d: PairedDesign, weights: Weights) -> FloatArray:
    """``(weights * labels) @ X`` per round: the label part of the gradient."""
    sums = _Sums(d, weights.shape[0], second=False)
    for block in d.blocks(weights.shape[0]):
        sums.add(block, weights[:, block.lo : block.hi] * d.labels[block.lo : block.hi])
    return sums.gradient()


def _loss(
    d: PairedDesign, theta: FloatArray, weights: Weights, wyx: FloatArray, reg: float
) -> FloatArray:
    """Penalised weighted log loss per round; ``wyx`` = ``_label_sums(d, weights)``."""
    neg_pair, neg_coef = _split(d, theta)
    loss = -np.einsum("rn,rn->r", wyx, theta) + 0.5 * reg * np.einsum("rn,rn->r", theta, theta)
    for block in d.blocks(theta.shape[0]):
        neg = _neg_logits(d, block, neg_pair, neg_coef)
        loss += np.einsum("ru,ru->r", _softplus_of_minus(neg), weights[:, block.lo : block.hi])
    return loss


def _softplus_of_minus(x: FloatArray) -> FloatArray:
    """``log(1 + exp(-x))`` = ``-log_expit(x)``, stable, from numpy's vectorised ``exp`` and
    ``log1p`` (scipy's ``log_expit`` is several times slower); overwrites ``x``."""
    negative_part = np.maximum(np.negative(x), 0.0)
    np.abs(x, out=x)
    np.negative(x, out=x)
    np.exp(x, out=x)
    np.log1p(x, out=x)
    x += negative_part
    return x


def _grad_hess(
    d: PairedDesign,
    theta: FloatArray,
    weights: Weights,
    wyx: FloatArray,
    reg: float,
    hessian: bool = True,
) -> tuple[FloatArray, FloatArray | None]:
    """Gradient and (unless ``hessian`` is false) Hessian per round.

    Probabilities come from numpy's vectorised ``exp``: with ``e = exp(-logit)``,
    ``p = 1 / (1 + e)`` and ``1 - p = e * p`` are both accurate in the tails.
    """
    m = d.n_models
    shared = len(theta) > 1 and bool((theta == theta[0]).all())  # e.g. every round at its start
    neg_pair, neg_coef = _split(d, theta[:1] if shared else theta)
    first = _Sums(d, theta.shape[0], second=False)
    second = _Sums(d, theta.shape[0], second=True) if hessian else None
    for block in d.blocks(theta.shape[0]):
        e = _neg_logits(d, block, neg_pair, neg_coef)
        # A separated round drives a logit past exp's range: e = inf would make p (1 - p) =
        # inf * 0 = NaN. Capped at e^700, p is ~1e-304 and 1 - p is 1, as they should be; below
        # the cap nothing changes.
        np.minimum(e, _MAX_NEG_LOGIT, out=e)
        np.exp(e, out=e)
        p = np.add(e, 1.0)
        np.reciprocal(p, out=p)
        if second is not None:
            np.multiply(e, p, out=e)  # 1 - p
        w = weights[:, block.lo : block.hi]
        p = np.multiply(p, w, out=None if shared else p)  # w p (one row of p if shared)
        first.add(block, p)
        if second is not None:
            e = np.multiply(e, p, out=None if shared else e)  # w p (1 - p)
            second.add(block, e)
    grad = first.gradient()
    grad += reg * theta - wyx
    if second is None:
        return grad, None
    hess = second.hessian(reg)
    if reg == 0.0:  # gauge ridge: keeps Newton steps orthogonal to the null space
        diag = np.arange(m)
        scale = np.abs(hess[:, diag, diag]).mean(axis=1, keepdims=True)
        hess[:, diag, diag] += 1e-10 * scale + 1e-300
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

    workers = min(_WORKERS, n_chunks)
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
