"""Resampling a paired table of counts is the item bootstrap: totals kept, multinomial spread."""

from __future__ import annotations

import numpy as np
import pytest

from vlmscope.stats.intervals import interval_of, percentile_interval, two_sided_p
from vlmscope.stats.paired_counts import resample_cells


def test_rounds_keep_the_total_and_spread_as_a_multinomial() -> None:
    table = np.array([[30, 5], [10, 55]])
    rounds = resample_cells(table, rounds=20_000, rng=np.random.default_rng(0))
    assert rounds.shape == (20_000, 2, 2) and (rounds.sum(axis=(1, 2)) == 100).all()
    share = table / 100
    assert rounds.mean(axis=0) == pytest.approx(table, rel=0.02)
    assert rounds.var(axis=0) == pytest.approx(100 * share * (1 - share), rel=0.05)


def test_the_same_as_resampling_items() -> None:
    """The spread of A's accuracy minus B's matches an explicit item-by-item bootstrap."""
    rng = np.random.default_rng(1)
    a = rng.random(300) < 0.6
    b = rng.random(300) < 0.5
    table = np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])
    rounds = resample_cells(table, rounds=20_000, rng=np.random.default_rng(2))
    diff = (rounds[:, 0, 1] - rounds[:, 1, 0]) / 300
    picks = np.random.default_rng(3).integers(0, 300, size=(20_000, 300))
    explicit = (a[picks].astype(float) - b[picks].astype(float)).mean(axis=1)
    assert diff.std() == pytest.approx(explicit.std(), rel=0.03)


def test_an_empty_table_gives_zeros_and_bad_input_is_refused() -> None:
    assert not resample_cells([0, 0], rounds=3, rng=np.random.default_rng(0)).any()
    with pytest.raises(ValueError, match="negative"):
        resample_cells([-1, 2], rounds=3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rounds"):
        resample_cells([1, 2], rounds=0, rng=np.random.default_rng(0))


def test_the_p_value_agrees_with_the_interval() -> None:
    """0 outside the 95% interval exactly when p < 0.05 (up to the +1 in the counts)."""
    rng = np.random.default_rng(4)
    for shift in np.linspace(0, 0.5, 11):
        draws = rng.normal(shift, 0.1, 4000)
        lower, upper = percentile_interval(draws)
        p = float(two_sided_p(draws))
        outside = lower > 0 or upper < 0
        assert outside == (p < 0.05) or abs(p - 0.05) < 0.003
    assert float(two_sided_p(np.zeros(10))) == 1.0
    assert np.isnan(two_sided_p(np.array([np.nan, np.nan])))
    summary = interval_of(0.3, rng.normal(0.3, 0.01, 1000), test=True)
    assert summary.lower < 0.3 < summary.upper and summary.p_value == pytest.approx(2 / 1001)
