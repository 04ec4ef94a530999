"""Which two contestants meet in a battle: a pure function of the names, the rule and a seed.

Sides are assigned at random after the pair is drawn, so a model is model_a as often as
model_b on average (position bias then cancels in the ratings).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from vlmscope.arena.config import Pairing


def draw_pair(names: Sequence[str], pairing: Pairing, rng: random.Random) -> tuple[str, str]:
    """(model_a, model_b), two different contestants drawn by `pairing.rule`."""
    if len(set(names)) < 2:
        raise ValueError(f"a battle needs two different contestants, got {list(names)}")
    if pairing.rule == "uniform":
        first, second = rng.sample(list(names), 2)
        return first, second
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if a != b]
    weights = [pair_weight(pairing.weights, a, b) for a, b in pairs]
    first, second = rng.choices(pairs, weights=weights, k=1)[0]
    return (first, second) if rng.random() < 0.5 else (second, first)


def pair_weight(weights: Mapping[str, float], a: str, b: str) -> float:
    """The weighted rule's weight of an unordered pair: the product of its models' weights."""
    return weights.get(a, 1.0) * weights.get(b, 1.0)
