"""Predicted and observed win rates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vlmscope.ratings import (
    Battles,
    pairwise_win_fraction,
    predicted_win_matrix,
    win_rate_vs_baseline,
)


def test_predicted_matrix() -> None:
    probs = predicted_win_matrix([1400.0, 1000.0])
    assert probs[0, 1] == pytest.approx(10 / 11)
    assert probs[0, 1] + probs[1, 0] == pytest.approx(1.0)
    assert np.isnan(probs[0, 0])


def test_win_rate_vs_baseline_percent() -> None:
    rates = win_rate_vs_baseline({"m": 1400.0, "base": 1000.0, "weak": 600.0}, "base")
    assert rates == {"m": round(100 * 10 / 11, 2), "base": 50.0, "weak": round(100 / 11, 2)}


def test_natural_scale_win_rate() -> None:
    """arena-hard v2: exp(c_m) / (exp(c_m) + exp(c_base)) with base e, scale 1."""
    rates = win_rate_vs_baseline(
        {"m": 0.7, "base": 0.2}, "base", base=math.e, scale=1.0, percent=False, decimals=None
    )
    assert rates["m"] == pytest.approx(math.exp(0.7) / (math.exp(0.7) + math.exp(0.2)))


def test_pairwise_win_fraction_counts_both_sides() -> None:
    pairs = [(p, q) for p in "xyz" for q in "xyz" if p != q]
    model_a = [p for p, _ in pairs] * 2 + ["x"]
    model_b = [q for _, q in pairs] * 2 + ["y"]
    outcome = [1.0] * len(pairs) + [0.0] * len(pairs) + [1.0]  # every order won once each way
    names, frac = pairwise_win_fraction(
        Battles.from_names(model_a, model_b, outcome), ["x", "y", "z"]
    )
    assert names == ("x", "y", "z")
    assert frac[0, 1] == pytest.approx(3 / 5)  # the extra battle: x beats y as model_a
    assert frac[1, 0] == pytest.approx(2 / 5)
    assert frac[2, 0] == pytest.approx(0.5)
    assert np.isnan(np.diag(frac)).all()


def test_pairwise_win_fraction_reference_nan_alignment() -> None:
    """The reference adds pandas pivot tables without a fill value: x never won as
    model_b, so x has no row in that table and its whole row is NaN."""
    battles = Battles.from_names(["x", "y", "x"], ["y", "x", "y"], [0.0, 1.0, 1.0])
    _, frac = pairwise_win_fraction(battles, ["x", "y"])
    assert np.isnan(frac[0, 1])
    assert frac[1, 0] == pytest.approx(2 / 3)
