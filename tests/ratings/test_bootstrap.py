"""Bootstrap streams, intervals and ranks."""

from __future__ import annotations

import numpy as np
import pytest

from vlmscope.ratings import (
    BootstrapResult,
    bootstrap_bt,
    bootstrap_elo,
    bootstrap_style_control,
    ci_ranks,
    resample_counts,
    synthetic_battles,
)


def test_ci_ranks_rule() -> None:
    lower = np.array([10.0, 5.0, 0.0, 9.0])
    upper = np.array([12.0, 9.5, 4.0, 11.0])
    # model 1's upper (9.5) is below the lower bounds of models 0 (10) and 3 (9.0 is not)
    assert ci_ranks(lower, upper).tolist() == [1, 2, 4, 1]


def test_interval_is_linear_interpolation() -> None:
    samples = np.arange(100, dtype=float)[:, None]
    result = BootstrapResult(models=("m",), rating=np.zeros(1), samples=samples)
    lower, upper = result.interval(0.95)
    assert lower[0] == pytest.approx(2.475) and upper[0] == pytest.approx(96.525)
    assert result.variance()[0] == pytest.approx(np.var(samples, ddof=1))


def test_randint_stream_is_numpy_global_seed_stream() -> None:
    counts = resample_counts(50, 7, seed=42)
    state = np.random.RandomState(42)
    expected = np.stack(
        [np.bincount(row, minlength=50) for row in state.randint(0, 50, size=(7, 50))]
    )
    np.testing.assert_array_equal(counts, expected)
    assert counts.sum(axis=1).tolist() == [50] * 7


def test_generator_stream_is_seeded_and_rounds_differ() -> None:
    b = synthetic_battles(3000, n_models=6, seed=4)
    first = bootstrap_bt(b, rounds=20, rng=np.random.default_rng(9))
    again = bootstrap_bt(b, rounds=20, rng=np.random.default_rng(9))
    np.testing.assert_array_equal(first.samples, again.samples)
    assert np.all(first.samples.std(axis=0) > 1.0)


def test_fastchat_solver_agrees_with_exact_solver() -> None:
    b = synthetic_battles(4000, n_models=6, seed=8)
    exact = bootstrap_style_control(b, rounds=10, stream="randint", seed=3)
    ref = bootstrap_style_control(b, rounds=10, stream="randint", seed=3, solver="fastchat")
    assert np.abs(exact.samples - ref.samples).max() < 0.2
    assert exact.coef_samples is not None and ref.coef_samples is not None
    assert np.abs(exact.coef_samples - ref.coef_samples).max() < 2e-4


def test_style_control_interval_covers_point() -> None:
    b = synthetic_battles(8000, n_models=8, seed=12)
    result = bootstrap_style_control(b, rounds=50, rng=np.random.default_rng(1))
    lower, upper = result.interval()
    assert np.all(lower <= result.rating) and np.all(result.rating <= upper)
    assert result.coef_samples is not None and result.coef_samples.shape == (50, 4)


def test_bootstrap_elo_median_near_online_elo_scale() -> None:
    b = synthetic_battles(3000, n_models=5, seed=6)
    result = bootstrap_elo(b, rounds=30, rng=np.random.default_rng(0))
    assert result.samples.shape == (30, 5)
    assert result.samples.mean() == pytest.approx(1000.0, abs=1e-6)  # Elo is zero-sum
