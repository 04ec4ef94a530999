"""Every entry of fastchat_components.json, reproduced from the same 4,772 battles."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ratings.arena_golden import anony_battles, by_model, golden
from vlmscope.ratings import (
    ah01_anchor,
    bootstrap_bt,
    bootstrap_elo,
    bootstrap_style_control,
    bt_ratings,
    online_elo,
    pairwise_win_fraction,
    predicted_win_matrix,
    style_control_ratings,
)

QUANTILES = ("q0.025", "q0.5", "q0.975")
POINT_TOL = 0.1  # rating points: the reference L-BFGS stops at gtol 1e-6, we converge fully
QUANTILE_TOL = 0.2  # same random stream, exact solver
COEF_TOL = 2e-4


def components() -> dict:
    return golden("fastchat_components.json")


def test_battle_count() -> None:
    assert len(anony_battles()) == components()["n_battles_anony"]


def test_online_elo_exact() -> None:
    b = anony_battles()
    np.testing.assert_allclose(
        online_elo(b), by_model(components()["compute_elo"], b.models), rtol=0, atol=1e-9
    )


def test_bootstrap_elo_reference_stream() -> None:
    b = anony_battles()
    result = bootstrap_elo(b, rounds=100, stream="fastchat", seed=42)
    for q in QUANTILES:
        expected = by_model(components()["compute_bootstrap_elo"][q], b.models)
        np.testing.assert_allclose(result.quantile(float(q[1:])), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    ("key", "anchor"),
    [
        ("compute_bt", "fastchat"),
        ("ah01_compute_mle_elo", ah01_anchor("gpt-4-0314")),
        ("ah01_compute_mle_elo_anchor_mixtral", ah01_anchor("mixtral-8x7b-instruct-v0.1")),
    ],
)
def test_bt_point(key: str, anchor: object) -> None:
    b = anony_battles()
    ratings = bt_ratings(b) if anchor == "fastchat" else bt_ratings(b, anchor=anchor)  # type: ignore[arg-type]
    np.testing.assert_allclose(
        ratings, by_model(components()[key], b.models), rtol=0, atol=POINT_TOL
    )


def test_ah01_without_baseline_averages_init() -> None:
    ratings = bt_ratings(anony_battles(), anchor=ah01_anchor("gpt-4-0314"))
    assert ratings.mean() == pytest.approx(1000.0, abs=1e-9)


@pytest.mark.parametrize("solver", ["newton", "fastchat"])
def test_bootstrap_bt(solver: str) -> None:
    b = anony_battles()
    ref = components()["compute_bootstrap_bt"]
    result = bootstrap_bt(b, rounds=100, stream="fastchat", solver=solver)  # type: ignore[arg-type]
    tol = QUANTILE_TOL if solver == "newton" else 1e-6
    for q in QUANTILES:
        np.testing.assert_allclose(
            result.quantile(float(q[1:])), by_model(ref[q], b.models), rtol=0, atol=tol
        )
    var_tol = 2e-3 if solver == "newton" else 1e-9
    np.testing.assert_allclose(
        result.variance(), by_model(ref["var"], b.models), rtol=var_tol, atol=1e-9
    )


def test_bootstrap_bt_default_stream_agrees_statistically() -> None:
    """Another random stream: agreement only up to the Monte-Carlo error of the
    reference's 100-round quantiles (standard error ~0.27 sd at the 2.5% tail)."""
    b = anony_battles()
    ref = components()["compute_bootstrap_bt"]
    sd = np.sqrt(by_model(ref["var"], b.models))
    result = bootstrap_bt(b, rounds=1000, rng=np.random.default_rng(7))
    for q, z in (("q0.025", 1.0), ("q0.5", 0.5), ("q0.975", 1.0)):
        diff = np.abs(result.quantile(float(q[1:])) - by_model(ref[q], b.models))
        assert np.all(diff <= z * sd + 1e-9), q
    np.testing.assert_allclose(
        result.variance(), by_model(ref["var"], b.models), rtol=0.4, atol=1e-9
    )


def test_style_control_point() -> None:
    b = anony_battles()
    ref = components()["compute_style_control"]
    fit = style_control_ratings(b)
    np.testing.assert_allclose(
        fit.ratings, by_model(ref["ratings"], b.models), rtol=0, atol=POINT_TOL
    )
    np.testing.assert_allclose(fit.coefs, ref["style_coef"], rtol=0, atol=COEF_TOL)


@pytest.mark.parametrize("solver", ["newton", "fastchat"])
def test_bootstrap_style_control(solver: str) -> None:
    b = anony_battles()
    ref = components()["compute_bootstrap_style_control"]
    result = bootstrap_style_control(b, rounds=100, stream="fastchat", solver=solver)  # type: ignore[arg-type]
    exact = solver == "fastchat"
    for q in QUANTILES:
        expected = by_model(ref[q], b.models)
        np.testing.assert_allclose(
            result.quantile(float(q[1:])), expected, rtol=0, atol=1e-6 if exact else QUANTILE_TOL
        )
    assert result.coef_samples is not None
    median = np.median(result.coef_samples, axis=0)
    np.testing.assert_allclose(
        median, ref["style_coef_median"], rtol=0, atol=1e-9 if exact else COEF_TOL
    )


def test_predicted_win_rate_from_bt() -> None:
    b = anony_battles()
    ref = components()["ah01_predict_win_rate_from_compute_bt"]
    ours = predicted_win_matrix(bt_ratings(b))
    from_golden = predicted_win_matrix(by_model(components()["compute_bt"], b.models))
    for j, col in enumerate(b.models):  # ref[col][row] = P(row beats col)
        for i, row in enumerate(b.models):
            if i == j:
                assert ref[col][row] is None and np.isnan(ours[i, j])
                continue
            assert from_golden[i, j] == pytest.approx(ref[col][row], abs=1e-12)
            assert 100 * abs(ours[i, j] - ref[col][row]) <= 0.05  # percentage points


def test_pairwise_win_fraction() -> None:
    b = anony_battles()
    ref = components()["compute_pairwise_win_fraction"]
    no_ties = b.take(b.outcome != 0.5)
    bt = components()["compute_bt"]
    order = sorted(bt, key=lambda m: -bt[m])
    names, matrix = pairwise_win_fraction(no_ties, order)
    assert list(names) == order
    for i, row in enumerate(names):
        for j, col in enumerate(names):
            expected = ref[row][col]
            if expected is None:
                assert np.isnan(matrix[i, j])
            else:
                assert matrix[i, j] == pytest.approx(expected, abs=1e-12)


def test_bootstrap_bt_with_defaults_is_within_two_points() -> None:
    """Our default stream (a Generator seeded 0, multinomial counts over the merged rows) draws
    the same counts FastChat does, so the defaults reproduce its quantiles, not just statistically."""
    b = anony_battles()
    ref = components()["compute_bootstrap_bt"]
    result = bootstrap_bt(b, rounds=100)
    for q in QUANTILES:
        assert np.max(np.abs(result.quantile(float(q[1:])) - by_model(ref[q], b.models))) <= 2.0, q
