"""Online Elo (FastChat ``compute_elo``) and its lock-step bootstrap.

Online Elo depends on the order of the battles: every model starts at ``init`` and each
battle moves both ratings by ``k * (score - expected)``. It is shown next to the
Bradley-Terry board as a sanity check, not used for ranking.
"""

from __future__ import annotations

import math

import numpy as np

from vlmscope.ratings.fits.bootstrap import (
    DEFAULT_SEED,
    BootstrapResult,
    LegacySeed,
    Stream,
    legacy_state,
)
from vlmscope.ratings.inputs.battles import Battles, FloatArray


def online_elo(
    battles: Battles,
    *,
    k: float = 4.0,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> FloatArray:
    """Ratings after one pass over the battles in row order (weights are ignored).

    Plain Python floats on purpose: the recursion is sequential, and scalar float
    arithmetic reproduces the reference bit for bit.
    """
    alpha = math.log(base) / scale
    ratings = [init] * battles.n_models
    for a, b, score in zip(
        battles.model_a.tolist(), battles.model_b.tolist(), battles.outcome.tolist(), strict=True
    ):
        expected = 1.0 / (1.0 + math.exp(alpha * (ratings[b] - ratings[a])))
        update = k * (score - expected)
        ratings[a] += update
        ratings[b] -= update
    return np.array(ratings, dtype=np.float64)


def bootstrap_elo(
    battles: Battles,
    *,
    rounds: int = 100,
    rng: np.random.Generator | None = None,
    stream: Stream = "generator",
    seed: LegacySeed = 42,
    k: float = 4.0,
    base: float = 10.0,
    scale: float = 400.0,
    init: float = 1000.0,
) -> BootstrapResult:
    """FastChat ``compute_bootstrap_elo``: each round replays n battles drawn with
    replacement, in the drawn order; all rounds advance in lock-step.

    Sample indices are an (n x rounds) matrix, column j = round j: from ``rng`` by
    default, or ``RandomState(seed).randint(0, n, size=(n, rounds))`` for
    ``stream="fastchat"``/``"randint"`` (FastChat's ``np.random.seed(42)`` global stream).
    The result's ``rating`` is the bootstrap median, as in FastChat's Elo mode.
    """
    n = len(battles)
    if stream == "generator":
        generator = rng if rng is not None else np.random.default_rng(DEFAULT_SEED)
        indices = generator.integers(0, n, size=(n, rounds))
    else:
        indices = legacy_state(seed).randint(0, n, size=(n, rounds))
    alpha = math.log(base) / scale
    ratings = np.zeros((rounds, battles.n_models))
    round_index = np.arange(rounds)
    a_all, b_all, score_all = battles.model_a, battles.model_b, battles.outcome
    for step in indices:
        a, b = a_all[step], b_all[step]
        diff = ratings[round_index, a] - ratings[round_index, b]
        update = k * (score_all[step] - 1.0 / (1.0 + np.exp(-alpha * diff)))
        ratings[round_index, a] += update
        ratings[round_index, b] -= update
    samples = ratings + init
    return BootstrapResult(
        models=battles.models, rating=np.median(samples, axis=0), samples=samples
    )
