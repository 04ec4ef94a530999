"""Percentile intervals and two-sided p-values from bootstrap draws.

The interval is the central percentile interval of the draws (linear interpolation, as
`np.percentile`), the convention of every other interval in vlmscope. The p-value is the one
that agrees with it: twice the smaller share of draws on either side of zero, each count plus
one over the number of draws plus one, so that 0 lies outside the 95% interval exactly when the
p-value is below about 0.05, and a statistic that never moves from 0 (two identical models) has
p = 1. Draws that are NaN (a macro average over no task in that round) are left out of both.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A point estimate with its interval; `p_value` for a difference tested against 0."""

    value: float
    lower: float
    upper: float
    p_value: float | None = None

    def to_json(self) -> dict[str, float | None]:
        return {
            "value": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "p_value": self.p_value,
        }


def percentile_interval(
    draws: npt.ArrayLike, level: float = LEVEL, axis: int = 0
) -> tuple[FloatArray, FloatArray]:
    """The central `level` percentile interval of `draws` along `axis`, NaN draws left out
    (bounds of all-NaN draws are NaN)."""
    values = np.asarray(draws, dtype=np.float64)
    tail = (1.0 - level) / 2.0 * 100.0
    if not np.isnan(values).any():  # the common case, many times faster than nanpercentile
        bounds = np.percentile(values, [tail, 100.0 - tail], axis=axis)
        return np.asarray(bounds[0], dtype=np.float64), np.asarray(bounds[1], dtype=np.float64)
    with warnings.catch_warnings():  # an all-NaN slice is an answer (NaN), not a problem
        warnings.simplefilter("ignore", RuntimeWarning)
        lower = np.nanpercentile(values, tail, axis=axis)
        upper = np.nanpercentile(values, 100.0 - tail, axis=axis)
    return np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)


def two_sided_p(draws: npt.ArrayLike, axis: int = 0) -> FloatArray:
    """Two-sided bootstrap p-value of "the statistic is 0": `2 * min(1 + #(d <= 0),
    1 + #(d >= 0)) / (n + 1)`, capped at 1, over the non-NaN draws (NaN when there are none)."""
    values = np.asarray(draws, dtype=np.float64)
    valid = ~np.isnan(values)
    n = valid.sum(axis=axis)
    below = (valid & (values <= 0)).sum(axis=axis)
    above = (valid & (values >= 0)).sum(axis=axis)
    smaller = np.minimum(below, above) + 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.minimum(1.0, 2.0 * smaller / (n + 1.0))
    return np.where(n > 0, p, np.nan)


def interval_of(value: float, draws: npt.ArrayLike, *, test: bool = False) -> Interval:
    """One statistic's point, percentile interval and, with `test`, its p-value against 0."""
    lower, upper = percentile_interval(np.asarray(draws, dtype=np.float64)[:, None])
    p = float(two_sided_p(np.asarray(draws, dtype=np.float64)[:, None])[0]) if test else None
    return Interval(float(value), float(lower[0]), float(upper[0]), p)
