"""Passes over a paired design: loss, gradient and Hessian for many rounds at once.

A pass over the rows is all the time a fit takes, so it has a module of its own, apart from
the design it reads (:mod:`vlmscope.ratings.fits._paired_design`) and the Newton iteration that
calls it (:mod:`vlmscope.ratings.fits._newton`). Every function here takes parameters and weights
per round (rounds x params, rounds x unique rows) and returns one result per round; the
weights may be small unsigned integers (bootstrap counts), which are only read.

How a pass is laid out: rows are sorted by model pair, and a pass walks cache-sized blocks
of rows for every round at once. In a block the logits are one matrix product (features x
coefficients) plus the pair's rating difference, then one ``exp`` gives p and p (1 - p).
Every sum the gradient and the Hessian need is, per pair segment of the block, one matrix
product of the weighted values with the rows' ``[1, features, feature products]``
(``PairedDesign.basis``); segments too short for a product of their own are summed with
``reduceat`` instead.
"""

from __future__ import annotations

import numpy as np

from vlmscope.ratings.fits._paired_design import PairedDesign, Weights, _Block
from vlmscope.ratings.inputs.battles import FloatArray

_MAX_NEG_LOGIT = 700.0
"""Cap on -logit before exp (e^709 is the largest double)."""


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
