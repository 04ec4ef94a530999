"""Paired categorical outcomes resampled as counts.

When every item has one of K joint outcomes (SimpleVQA: model A's grade x model B's grade;
a battle: win, tie or loss), resampling N items with replacement changes nothing but how many
items fall in each outcome, and those counts are multinomial(N, observed shares). Drawing the
counts directly is the same bootstrap, at a cost that does not grow with N, and it keeps the
pairing: a round's counts say how both models did on the same resampled items.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]


def resample_cells(counts: npt.ArrayLike, *, rounds: int, rng: np.random.Generator) -> IntArray:
    """`rounds` bootstrap draws of a table of counts (any shape): rounds x the table's shape,
    each round summing to the table's total. An empty table gives rounds of zeros."""
    table = np.asarray(counts, dtype=np.int64)
    if rounds < 1:
        raise ValueError(f"rounds: must be at least 1, got {rounds}")
    if (table < 0).any():
        raise ValueError("counts must not be negative")
    total = int(table.sum())
    if total == 0:
        return np.zeros((rounds, *table.shape), dtype=np.int64)
    draws = rng.multinomial(total, table.ravel() / total, size=rounds)
    return np.asarray(draws, dtype=np.int64).reshape(rounds, *table.shape)
