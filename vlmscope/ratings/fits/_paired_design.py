"""The implicit design of a paired-comparison logistic model, and its row blocks.

Model: ``logit P(a beats b) = alpha * (r_a - r_b) + features . beta`` with soft labels
(ties = 0.5) and row weights. The design matrix is never built: identical rows are merged
once, the unique rows are sorted by model pair so that each pair is a contiguous segment,
and a row's model part is its pair's incidence row (``+alpha`` at a, ``-alpha`` at b).

Kept apart from the passes that read it (:mod:`vlmscope.ratings.fits._paired_passes`) and the
solver that drives them (:mod:`vlmscope.ratings.fits._newton`) because it is built once per fit
and shared by every round: a bootstrap round is the same design with another weight vector.
The layout of a pass (cache-sized blocks of rows, and whether a block's pair segments are
long enough for one matrix product each) depends only on the design and the number of
rounds solved together, so it is decided here and cached on the design.

Inputs must be finite: otherwise :class:`~vlmscope.ratings.fits.fit_checks.FitError` (a NaN would
otherwise leave every rating at its start, i.e. every model at 1000).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.fits.fit_checks import require_finite
from vlmscope.ratings.inputs.battles import FloatArray, IntArray
from vlmscope.ratings.inputs.merged_rows import MergedRows, merge_identical

_BLOCK_ELEMENTS = 1 << 17  # rounds x rows per block: float64 temporaries of 1 MB stay in cache
_MIN_BLOCK_ROWS = 256
_SEGMENT_GEMM_ROWS = 512  # a block whose pair segments average this many rows: one product each

Weights = NDArray[Any]  # rounds x unique rows, float64 or an unsigned integer type


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
        pair_incidence=incidence,
        merged=merged,
        alpha=alpha,
        max_feature_l1=float(np.abs(ufeats).sum(axis=1).max()) if ufeats.size else 0.0,
        n_features=k,
        features_t=np.ascontiguousarray(ufeats.T),
        pair_a=ua[starts],
        pair_b=ub[starts],
    )
