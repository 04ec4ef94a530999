"""Bootstrap confidence intervals for Bradley-Terry and style-controlled ratings.

A round resamples battles with replacement; since identical rows are merged, a round is
just another weight vector over the unique rows, and all rounds are solved together
(warm-started at the full-data fit). The point shown is the full-data fit; intervals are
percentiles with linear interpolation (pandas ``quantile`` / ``np.percentile``).

For row streams the rounds are drawn in chunks and handed to the solver as they come: the
draws (sequential: they are the reference's random stream) go on while earlier chunks are
counted and solved on other threads, and a round's counts are small integers (``uint8``), so
a 100-round bootstrap over millions of battles never holds a float64 rounds x rows matrix.
The draws are the same numbers in the same order as the reference's, whatever the chunking.

Random streams (``stream``):

* ``"generator"`` (default): an explicit ``numpy.random.Generator`` (``rng``); without
  one, ``np.random.default_rng(DEFAULT_SEED)``, so results never depend on hidden state.
* ``"fastchat"``: the reference stream of the FastChat function being reproduced. For
  Bradley-Terry ``np.random.default_rng(0).multinomial(n, counts / n, size=rounds)`` over
  the ``np.unique``-sorted ``(model_a, model_b, outcome)`` rows (``compute_bootstrap_bt``);
  for style control the ``"randint"`` stream with ``seed=42``
  (``compute_bootstrap_style_control`` after the CLI's ``np.random.seed(42)``).
* ``"randint"``: ``RandomState(seed).randint(0, n, size=(rounds, n))``, row j of which
  indexes the battle rows of round j. This is ``np.random.seed(seed)`` followed by
  FastChat style control, arena-hard v0.1 ``get_bootstrap_result`` (pandas
  ``sample(frac=1, replace=True)``) or ``get_bootstrap_result_style_control``. Pass a
  ``RandomState`` as ``seed`` to continue a stream across calls.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike

from vlmscope.ratings.fits._newton import LazyChunk, newton_solve, rounds_per_chunk
from vlmscope.ratings.fits._paired_design import PairedDesign, Weights, build_design
from vlmscope.ratings.fits.bradley_terry import FASTCHAT_ANCHOR, Anchor, to_rating_scale
from vlmscope.ratings.fits.fastchat_optimiser import lbfgs_bt, lbfgs_style
from vlmscope.ratings.fits.style_control import battle_style_features, style_design
from vlmscope.ratings.inputs.battles import Battles, FloatArray, IntArray
from vlmscope.ratings.inputs.merged_rows import MergedRows

Stream = Literal["generator", "fastchat", "randint"]
LegacySeed = int | np.random.RandomState
_RANDINT_CHUNK = 4_000_000
Solver = Literal["newton", "fastchat"]
DEFAULT_SEED = 0


def legacy_state(seed: LegacySeed) -> np.random.RandomState:
    """The legacy global-RNG stream ``np.random.seed(seed)`` would give, without touching it."""
    return seed if isinstance(seed, np.random.RandomState) else np.random.RandomState(seed)


def ci_ranks(lower: ArrayLike, upper: ArrayLike) -> IntArray:
    """1 + number of models whose lower bound is strictly above this model's upper bound."""
    lo, up = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    return 1 + (lo[None, :] > up[:, None]).sum(axis=1)


@dataclass(frozen=True)
class BootstrapResult:
    """Point ratings and bootstrap samples (rounds x models), optional style coefficients."""

    models: tuple[str, ...]
    rating: FloatArray
    samples: FloatArray
    coefs: FloatArray | None = None
    coef_samples: FloatArray | None = None

    def quantile(self, q: float) -> FloatArray:
        return np.quantile(self.samples, q, axis=0)

    def interval(self, level: float = 0.95) -> tuple[FloatArray, FloatArray]:
        """Percentile interval, e.g. 2.5 / 97.5 for 0.95."""
        tail = (1.0 - level) / 2.0
        return self.quantile(tail), self.quantile(1.0 - tail)

    def variance(self, ddof: int = 1) -> FloatArray:
        return np.var(self.samples, axis=0, ddof=ddof)

    def ranks(self, level: float = 0.95) -> IntArray:
        return ci_ranks(*self.interval(level))


def resample_indices(
    n_rows: int,
    rounds: int,
    *,
    rng: np.random.Generator | None = None,
    seed: LegacySeed | None = None,
    legacy_dtype: Any = np.int64,
) -> Iterator[IntArray]:
    """Row indices drawn with replacement, in chunks of rounds (each chunk rounds x rows).

    With ``seed`` this is the ``randint`` reference stream, else draws from ``rng``;
    chunking does not change either stream. ``legacy_dtype=np.int32`` gives the same
    ``randint`` values (the legacy generator draws 32-bit words for any range below 2**32)
    in half the memory.
    """
    state = legacy_state(seed) if seed is not None else None
    generator = rng if rng is not None else np.random.default_rng(DEFAULT_SEED)
    chunk = max(1, _RANDINT_CHUNK // max(1, n_rows))
    for lo in range(0, rounds, chunk):
        size = (min(chunk, rounds - lo), n_rows)
        if state is not None:
            yield cast(IntArray, state.randint(0, n_rows, size=size, dtype=legacy_dtype))
        else:
            yield generator.integers(0, n_rows, size=size)


def resample_counts(
    n_rows: int,
    rounds: int,
    *,
    rng: np.random.Generator | None = None,
    seed: LegacySeed | None = None,
) -> FloatArray:
    """How often each battle row is drawn in each round (rounds x rows)."""
    blocks = []
    for draws in resample_indices(n_rows, rounds, rng=rng, seed=seed):
        flat = (draws + (np.arange(draws.shape[0]) * n_rows)[:, None]).ravel()
        blocks.append(np.bincount(flat, minlength=draws.size).reshape(draws.shape))
    return np.vstack(blocks).astype(np.float64) if blocks else np.zeros((0, n_rows))


def _counts(
    merged: MergedRows, draws: Sequence[IntArray], row_weights: FloatArray | None
) -> Weights:
    """Rounds x unique rows: how often each unique row was drawn (``draws``: rounds x battle
    rows), times the battle weights when they are not all 1.

    Unit weights give integer counts in the smallest unsigned type that holds the largest one
    (``uint8`` unless a row is drawn 256 times): a 100-round matrix over 2.7M unique rows is
    270 MB instead of 2.2 GB of float64 (the type is sized for the largest count times the
    most rows merged into one). Draws are counted in battle order, then moved to the design's
    order (a gather of small integers that stays in cache)."""
    n_rows, n_unique = len(merged.inverse), len(merged.first)
    if row_weights is not None:
        out = np.empty((len(draws), n_unique))
        for r, row in enumerate(draws):
            out[r] = merged.sum_runs(np.bincount(row, minlength=n_rows) * row_weights)
        return out
    rows = [np.bincount(row, minlength=n_rows) for row in draws]
    largest = max((int(row.max(initial=0)) for row in rows), default=0)
    bound = largest * (merged.longest_run if n_unique < n_rows else 1)
    dtype = np.min_scalar_type(max(bound, 1))  # holds any sum over a unique row's rows
    return np.array([merged.sum_runs(row.astype(dtype)) for row in rows], dtype=dtype)


def _unique_counts(
    design: PairedDesign,
    row_weights: FloatArray,
    rounds: int,
    rng: np.random.Generator | None,
    seed: LegacySeed | None,
) -> Iterator[LazyChunk]:
    """Resampled battle rows counted straight into the design's unique rows, in chunks of
    ``rounds_per_chunk`` rounds. Only the draws happen here (the random stream is sequential);
    the solving thread counts them (:class:`LazyChunk`)."""
    n_unique = design.n_rows
    weights = None if np.all(row_weights == 1.0) else row_weights
    per_chunk = rounds_per_chunk(rounds, n_unique)
    pending: list[IntArray] = []
    small = np.int32 if len(row_weights) < 1 << 31 else np.int64
    for draws in resample_indices(len(row_weights), rounds, rng=rng, seed=seed, legacy_dtype=small):
        pending.extend(draws)
        while len(pending) >= per_chunk:
            batch, pending = pending[:per_chunk], pending[per_chunk:]
            yield LazyChunk(len(batch), partial(_counts, design.merged, batch, weights))
    if pending:
        yield LazyChunk(len(pending), partial(_counts, design.merged, pending, weights))


def _materialised(chunk: Weights | LazyChunk) -> Weights:
    return chunk.make() if isinstance(chunk, LazyChunk) else chunk


def _round_weights(
    design: PairedDesign,
    row_weights: FloatArray,
    rounds: int,
    stream: Stream,
    rng: np.random.Generator | None,
    seed: LegacySeed,
    fastchat_multinomial: bool,
) -> Weights | Iterator[LazyChunk]:
    """Per-round weights over the design's unique rows: a matrix, or chunks of rounds."""
    n = row_weights.shape[0]
    unit = bool(np.all(row_weights == 1.0))
    merged = design.merged.weights
    if stream == "fastchat" and fastchat_multinomial:
        if not unit:
            raise ValueError("the FastChat multinomial stream needs unit battle weights")
        draws = np.random.default_rng(seed=0).multinomial(n, merged / merged.sum(), size=rounds)
        return draws.astype(np.float64)
    if stream in ("fastchat", "randint"):
        return _unique_counts(design, row_weights, rounds, None, seed)
    generator = rng if rng is not None else np.random.default_rng(DEFAULT_SEED)
    if unit and len(merged) * 8 < n:  # few unique rows: draw their counts directly
        return generator.multinomial(n, merged / merged.sum(), size=rounds).astype(np.float64)
    return _unique_counts(design, row_weights, rounds, generator, None)


def bootstrap_bt(
    battles: Battles,
    *,
    rounds: int = 100,
    rng: np.random.Generator | None = None,
    stream: Stream = "generator",
    seed: LegacySeed = 42,
    solver: Solver = "newton",
    anchor: Anchor | None = FASTCHAT_ANCHOR,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> BootstrapResult:
    """Bradley-Terry point fit plus ``rounds`` bootstrap fits (FastChat ``compute_bootstrap_bt``
    with ``stream="fastchat"``; arena-hard v0.1 ``get_bootstrap_result`` with ``"randint"``).

    ``solver="fastchat"`` replays FastChat's early-stopping L-BFGS-B instead of the exact
    Newton solver (see :mod:`vlmscope.ratings.fits.fastchat_optimiser`).
    """
    alpha = math.log(base)
    design = build_design(
        battles.model_a,
        battles.model_b,
        battles.outcome,
        None,
        battles.weights,
        battles.n_models,
        alpha,
    )
    weights = _round_weights(design, battles.weights, rounds, stream, rng, seed, True)
    if solver == "newton":
        point = newton_solve(design, design.merged.weights)[0]
        theta = newton_solve(design, weights, start=point, n_rounds=rounds)
    else:
        rows = (
            battles.model_a[design.merged.first],
            battles.model_b[design.merged.first],
            design.labels,
        )
        fit = partial(lbfgs_bt, *rows, n_models=battles.n_models, alpha=alpha)
        point = fit(design.merged.weights)
        chunks = [weights] if isinstance(weights, np.ndarray) else weights
        fits = [fit(w / len(battles)) for chunk in chunks for w in _materialised(chunk)]
        theta = np.array(fits).reshape(rounds, -1)
    return BootstrapResult(
        models=battles.models,
        rating=to_rating_scale(point, battles.models, anchor, scale, init),
        samples=to_rating_scale(theta, battles.models, anchor, scale, init),
    )


def bootstrap_style_control(
    battles: Battles,
    *,
    features: ArrayLike | None = None,
    rounds: int = 100,
    rng: np.random.Generator | None = None,
    stream: Stream = "generator",
    seed: LegacySeed = 42,
    solver: Solver = "newton",
    anchor: Anchor | None = FASTCHAT_ANCHOR,
    reg: float = 0.5,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> BootstrapResult:
    """Style-controlled point fit plus bootstrap (FastChat ``compute_bootstrap_style_control``
    with ``stream="fastchat"``; arena-hard v0.1 / ProBench
    ``get_bootstrap_result_style_control`` with ``"randint"``). Features are computed once
    on all battles (default: the four FastChat ones) and reused by every round.
    ``solver="fastchat"`` refits each resampled row set with FastChat's L-BFGS-B."""
    feats = battle_style_features(battles) if features is None else np.asarray(features, float)
    m = battles.n_models
    if solver == "newton":
        design = style_design(
            battles.model_a, battles.model_b, battles.outcome, feats, battles.weights, m, base
        )
        point = newton_solve(design, design.merged.weights, reg=reg)[0]
        weights = _round_weights(design, battles.weights, rounds, stream, rng, seed, False)
        theta = newton_solve(design, weights, start=point, reg=reg, n_rounds=rounds)
    else:
        if not np.all(battles.weights == 1.0):
            raise ValueError("solver='fastchat' needs unit battle weights")
        a, b, y = battles.model_a, battles.model_b, battles.outcome
        fit = partial(lbfgs_style, n_models=m, alpha=math.log(base), reg=reg)
        point = fit(a, b, feats, y)
        legacy = seed if stream != "generator" else None
        fits = [
            fit(a[idx], b[idx], feats[idx], y[idx])
            for chunk in resample_indices(len(battles), rounds, rng=rng, seed=legacy)
            for idx in chunk
        ]
        theta = np.array(fits).reshape(rounds, -1)
    return BootstrapResult(
        models=battles.models,
        rating=to_rating_scale(point[:m], battles.models, anchor, scale, init),
        samples=to_rating_scale(theta[:, :m], battles.models, anchor, scale, init),
        coefs=point[m:].copy(),
        coef_samples=theta[:, m:].copy(),
    )
