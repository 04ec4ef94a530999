"""Bradley-Terry and style-control fits: properties that hold exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vlmscope.ratings import (
    Anchor,
    Battles,
    bt_ratings,
    fit_bt,
    fit_bt_strengths,
    fit_style_bt,
    merge_identical,
    style_features,
    synthetic_battles,
    to_rating_scale,
)
from vlmscope.ratings.fits.fastchat_optimiser import lbfgs_bt, lbfgs_style


def gradient_bt(
    r: np.ndarray, a: np.ndarray, b: np.ndarray, y: np.ndarray, w: np.ndarray
) -> np.ndarray:
    p = 1.0 / (1.0 + np.exp(-math.log(10) * (r[a] - r[b])))
    g = np.zeros_like(r)
    np.add.at(g, a, w * (p - y))
    np.add.at(g, b, -w * (p - y))
    return g


def test_mle_is_stationary_and_mean_zero() -> None:
    b = synthetic_battles(3000, n_models=8, seed=3)
    r = fit_bt_strengths(b.model_a, b.model_b, b.outcome, n_models=b.n_models)
    assert np.abs(gradient_bt(r, b.model_a, b.model_b, b.outcome, b.weights)).max() < 1e-7
    assert abs(r.sum()) < 1e-12


def test_weights_equal_duplicated_rows() -> None:
    a = np.array([0, 1, 2, 0, 1])
    b = np.array([1, 2, 0, 2, 0])
    y = np.array([1.0, 0.5, 0.0, 1.0, 0.0])
    w = np.array([3.0, 1.0, 2.0, 1.0, 4.0])
    rep = np.repeat(np.arange(5), w.astype(int))
    weighted = fit_bt_strengths(a, b, y, w)
    duplicated = fit_bt_strengths(a[rep], b[rep], y[rep])
    np.testing.assert_allclose(weighted, duplicated, atol=1e-10)


def test_tie_is_half_win_half_loss() -> None:
    """One tie weighs like one win plus one loss at half weight each (arena-hard's coding)."""
    a, b = np.array([0, 0, 1]), np.array([1, 2, 2])
    tie = fit_bt_strengths(a, b, np.array([0.5, 1.0, 0.0]))
    split = fit_bt_strengths(
        np.array([0, 0, 0, 1]),
        np.array([1, 1, 2, 2]),
        np.array([1.0, 0.0, 1.0, 0.0]),
        np.array([0.5, 0.5, 1.0, 1.0]),
    )
    np.testing.assert_allclose(tie, split, atol=1e-10)


def test_matches_fastchat_lbfgs_at_its_tolerance() -> None:
    b = synthetic_battles(5000, n_models=10, seed=5)
    ours = fit_bt_strengths(b.model_a, b.model_b, b.outcome, n_models=10)
    ref = lbfgs_bt(b.model_a, b.model_b, b.outcome, b.weights, 10, math.log(10))
    assert np.abs(400 * (ours - ref)).max() < 0.1


def test_anchor_and_fallback() -> None:
    b = synthetic_battles(2000, n_models=5, seed=1)
    pinned = bt_ratings(b, anchor=Anchor("model-02", 1234.5))
    assert pinned[b.models.index("model-02")] == pytest.approx(1234.5, abs=1e-9)
    absent = bt_ratings(b, anchor=Anchor("not-a-model", 1114.0))
    assert absent.mean() == pytest.approx(1000.0, abs=1e-9)
    np.testing.assert_allclose(np.diff(pinned), np.diff(absent), atol=1e-9)
    with pytest.raises(ValueError, match="no battles"):
        to_rating_scale(np.zeros(5), b.models, Anchor("not-a-model", 1.0, required=True))


def test_disconnected_components_each_average_init() -> None:
    """Like the references (zero start, gradient sums to zero per component)."""
    a, b = np.array([0, 1, 2, 3, 2]), np.array([1, 0, 3, 2, 3])
    y = np.array([1.0, 1.0, 1.0, 0.0, 1.0])
    ratings = fit_bt(a, b, y, n_models=4)
    assert ratings[:2].mean() == pytest.approx(1000.0, abs=1e-9)
    assert ratings[2:].mean() == pytest.approx(1000.0, abs=1e-9)


def test_separated_model_stays_finite_and_others_unaffected() -> None:
    b = synthetic_battles(4000, n_models=6, seed=11)
    extra_a = [b.models[i] for i in b.model_a] + ["winner"] * 5
    extra_b = [b.models[i] for i in b.model_b] + [b.models[0]] * 5
    with_sep = Battles.from_names(extra_a, extra_b, np.append(b.outcome, np.ones(5)))
    ratings = fit_bt(with_sep.model_a, with_sep.model_b, with_sep.outcome, models=with_sep.models)
    assert np.all(np.isfinite(ratings))
    top = with_sep.models.index("winner")
    assert ratings[top] > np.delete(ratings, top).max() + 1000
    base = bt_ratings(b, anchor=None)
    others = np.array([ratings[with_sep.models.index(m)] for m in b.models])
    shift = (others - base).mean()
    assert np.abs(others - base - shift).max() < 1.0  # the five wins barely tie into the rest


def test_merge_identical() -> None:
    merged = merge_identical(
        [np.array([2, 1, 2, 1]), np.array([0.5, 0.5, 0.5, 1.0])], np.array([1.0, 2.0, 3.0, 4.0])
    )
    assert merged.weights.tolist() == [2.0, 4.0, 4.0]
    assert merged.inverse.tolist() == [2, 0, 2, 1]


def test_style_features_formula() -> None:
    a = np.array([[10.0, 0.0], [30.0, 2.0], [5.0, 1.0]])
    b = np.array([[20.0, 1.0], [10.0, 0.0], [5.0, 3.0]])
    f = style_features(a, b)
    raw = (a - b) / (a + b + 1)
    np.testing.assert_allclose(f, (raw - raw.mean(0)) / raw.std(0))
    np.testing.assert_allclose(f.mean(0), 0.0, atol=1e-12)


def test_style_fit_matches_reference_lbfgs_and_recovers_effect() -> None:
    b = synthetic_battles(20000, n_models=8, seed=2)
    assert b.style_a is not None and b.style_b is not None
    f = style_features(b.style_a, b.style_b)
    fit = fit_style_bt(b.model_a, b.model_b, b.outcome, f, models=b.models, anchor=None)
    ref = lbfgs_style(b.model_a, b.model_b, f, b.outcome, 8, math.log(10))
    np.testing.assert_allclose(fit.ratings, 400 * ref[:8] + 1000, atol=0.1)
    np.testing.assert_allclose(fit.coefs, ref[8:], atol=2e-4)
    assert fit.coefs[0] > 0.1  # the generator rewards longer answers
