"""pandas' group statistics to the last bit, where a reference prints numbers it computed so.

arena-hard v2's no-style board takes the mean and the 5% / 95% quantiles of 100 bootstrap round
means with ``DataFrame.groupby(..).mean()`` / ``.quantile(q)`` and prints them to 0.1 percentage
point. pandas sums a group with Kahan compensation (``group_mean``) and interpolates a quantile
as ``v[i] + (v[i + 1] - v[i]) * frac`` with ``frac = (q * (n - 1)) % 1`` (``group_quantile``);
``np.mean`` (pairwise sums) and ``np.quantile`` (another interpolation form) differ from these in
the last bit, which flips a printed digit when the value sits on a rounding boundary.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike


def group_mean(values: Iterable[float]) -> float:
    """Mean with pandas' Kahan-compensated running sum, in the given order."""
    total = compensation = 0.0
    count = 0
    for value in values:
        adjusted = float(value) - compensation
        running = total + adjusted
        compensation = running - total - adjusted
        total = running
        count += 1
    return total / count if count else float("nan")


def group_quantile(values: ArrayLike, q: float) -> float:
    """Linear-interpolated quantile as pandas' ``groupby(..).quantile(q)`` computes it."""
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    if ordered.size == 0:
        return float("nan")
    position = q * (ordered.size - 1)
    index, frac = int(position), position % 1
    low = float(ordered[index])
    if frac == 0.0:
        return low
    return low + (float(ordered[index + 1]) - low) * frac
