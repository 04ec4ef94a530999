"""Seeded synthetic battles for benchmarks and statistical tests.

Latent Bradley-Terry strengths, uneven model popularity (so some models are sparse),
per-model style habits (answer length, headers, lists, bold) whose normalised
differences shift the outcome, and ties. Style counts are raw per-side counts like
FastChat's ``conv_metadata``.
"""

from __future__ import annotations

import math

import numpy as np

from vlmscope.ratings.inputs.battles import Battles

#: Style effect on the logit per normalised difference (tokens, headers, lists, bold).
TRUE_STYLE_EFFECT = np.array([0.6, 0.1, 0.3, 0.05])


def synthetic_battles(
    n: int,
    *,
    n_models: int = 20,
    seed: int = 0,
    tie_rate: float = 0.2,
    strength_sd: float = 0.4,
) -> Battles:
    """``n`` battles among ``n_models`` models named ``model-00``, ``model-01``, ...

    Strengths are natural-scale (``logit = ln 10 * (r_a - r_b) + style``); a battle is a
    tie with probability ``tie_rate``, otherwise decided by the logistic model.
    """
    rng = np.random.default_rng(seed)
    strengths = rng.normal(0.0, strength_sd, n_models)
    popularity = 1.0 / np.arange(1, n_models + 1) ** 0.8
    popularity /= popularity.sum()
    model_a = rng.choice(n_models, size=n, p=popularity)
    offset = rng.integers(1, n_models, size=n)  # b != a, roughly uniform
    model_b = (model_a + offset) % n_models

    log_tokens = rng.normal(5.5, 0.5, n_models)
    markdown_rate = rng.gamma(2.0, 1.5, size=(n_models, 3))

    def sides(ids: np.ndarray) -> np.ndarray:
        tokens = np.rint(rng.lognormal(log_tokens[ids], 0.6))
        counts = rng.poisson(markdown_rate[ids])
        return np.column_stack([tokens, counts]).astype(np.float64)

    style_a, style_b = sides(model_a), sides(model_b)
    ratio = (style_a - style_b) / (style_a + style_b + 1.0)
    logit = math.log(10.0) * (strengths[model_a] - strengths[model_b]) + ratio @ TRUE_STYLE_EFFECT
    a_wins = rng.random(n) < 1.0 / (1.0 + np.exp(-logit))
    outcome = np.where(a_wins, 1.0, 0.0)
    outcome[rng.random(n) < tie_rate] = 0.5
    names = [f"model-{i:02d}" for i in range(n_models)]
    return Battles.from_names(
        [names[i] for i in model_a],
        [names[i] for i in model_b],
        outcome,
        style_a=style_a,
        style_b=style_b,
    )
