"""The two-stage macro bootstrap against what is known about it in closed form, and the three
properties a comparison must have: a planted difference is found, identical models give an
interval on 0, and p-values are uniform when there is no difference. With task-level
correlation the task-clustered interval is wider than the naive one, and only it keeps its
coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from vlmscope.stats.intervals import percentile_interval, two_sided_p
from vlmscope.stats.macro_bootstrap import MacroDraws, macro_bootstrap, macro_means, task_means


def _tasks(n_tasks: int, per_task: int) -> np.ndarray:
    return np.full(n_tasks, per_task, dtype=np.int64)


def _everything(n_tasks: int) -> np.ndarray:
    return np.ones((1, n_tasks), dtype=bool)


def _paired_data(
    rng: np.random.Generator,
    n_tasks: int,
    per_task: int,
    *,
    shift: float = 0.0,
    task_spread: float = 0.0,
    noise: float = 0.1,
) -> np.ndarray:
    """queries x 2 models: A = task level + noise; B = A's task level + shift + a task effect of
    sd `task_spread` (how much more the task favours B) + its own noise."""
    level = np.repeat(rng.uniform(0.2, 0.8, n_tasks), per_task)
    effect = np.repeat(rng.normal(0.0, task_spread, n_tasks), per_task)
    a = level + rng.normal(0, noise, len(level))
    b = level + shift + effect + rng.normal(0, noise, len(level))
    return np.column_stack([a, b])


def _one(draws: MacroDraws, model: int = 0) -> np.ndarray:
    """A model's rounds of the first group."""
    return draws.combine(np.eye(draws.point.shape[1])[model])[1][:, 0, 0]


def _diff(scores: np.ndarray, n_tasks: int, per_task: int, seed: int, **options: object):  # noqa: ANN202
    draws = macro_bootstrap(
        scores,
        _tasks(n_tasks, per_task),
        _everything(n_tasks),
        rounds=int(options.pop("rounds", 400)),  # type: ignore[call-overload]
        rng=np.random.default_rng(seed),
        **options,  # type: ignore[arg-type]
    )
    point, rounds = draws.combine([-1.0, 1.0])
    point, rounds = point[0, 0], rounds[:, 0, 0]
    lower, upper = percentile_interval(rounds)
    return point, float(lower), float(upper), float(two_sided_p(rounds))


def test_the_point_is_the_macro_mean_of_task_means() -> None:
    scores = np.array([[1.0], [0.0], [0.5], [1.0], [1.0], [0.0]])
    sizes = np.array([2, 1, 3])
    groups = np.array([[True, True, True], [True, False, False], [False, False, False]])
    means = task_means(scores, sizes)
    assert means[:, 0].tolist() == [0.5, 0.5, 2 / 3]
    point = macro_means(means, groups)
    assert point[0, 0] == pytest.approx((0.5 + 0.5 + 2 / 3) / 3)
    assert point[1, 0] == 0.5 and np.isnan(point[2, 0])
    draws = macro_bootstrap(scores, sizes, groups, rounds=5, rng=np.random.default_rng(0))
    assert np.array_equal(draws.point, point, equal_nan=True)
    rounds = draws.combine([1.0])[1]
    assert rounds.shape == (5, 3, 1) and np.isnan(rounds[:, 2]).all()


def test_queries_only_match_the_standard_error_of_a_mean() -> None:
    """One task, queries resampled: the bootstrap sd of the mean is the plug-in sd / sqrt(n)."""
    rng = np.random.default_rng(1)
    scores = rng.normal(0.5, 0.2, 50)
    draws = macro_bootstrap(
        scores, [50], _everything(1), rounds=20_000, rng=np.random.default_rng(2)
    )
    assert _one(draws).std() == pytest.approx(scores.std() / np.sqrt(50), rel=0.03)


def test_tasks_only_match_the_standard_error_of_the_task_mean() -> None:
    """Tasks resampled, queries kept: the sd of the macro mean is the task means' sd / sqrt(T)."""
    rng = np.random.default_rng(3)
    scores = rng.uniform(0, 1, 40 * 3)
    sizes = _tasks(40, 3)
    draws = macro_bootstrap(
        scores,
        sizes,
        _everything(40),
        rounds=20_000,
        rng=np.random.default_rng(4),
        resample_queries=False,
    )
    means = task_means(scores[:, None], sizes)[:, 0]
    assert _one(draws).std() == pytest.approx(means.std() / np.sqrt(40), rel=0.03)


def test_tasks_are_drawn_within_their_stratum() -> None:
    """Core tasks all score 0 and Open tasks 1: drawn within their stratum, every round keeps
    4 Core and 2 Open copies, so the overall mean never moves; drawn together it does."""
    scores = np.repeat([0.0, 0.0, 0.0, 0.0, 1.0, 1.0], 2)
    sizes, groups = _tasks(6, 2), _everything(6)
    strata = np.array(["core"] * 4 + ["open"] * 2)
    kept = macro_bootstrap(
        scores, sizes, groups, rounds=200, rng=np.random.default_rng(5), strata=strata
    )
    assert np.allclose(_one(kept), 2 / 6)
    mixed = macro_bootstrap(scores, sizes, groups, rounds=200, rng=np.random.default_rng(5))
    assert _one(mixed).std() > 0.05


def test_a_planted_difference_is_found() -> None:
    rng = np.random.default_rng(6)
    scores = _paired_data(rng, 60, 10, shift=0.05, task_spread=0.02)
    point, lower, upper, p = _diff(scores, 60, 10, seed=7)
    assert 0 < lower < 0.05 < upper and point == pytest.approx(0.05, abs=0.02)
    assert p < 0.01


def test_identical_models_give_an_interval_on_zero() -> None:
    rng = np.random.default_rng(8)
    a = _paired_data(rng, 30, 8)[:, 0]
    point, lower, upper, p = _diff(np.column_stack([a, a]), 30, 8, seed=9)
    assert (point, lower, upper, p) == (0.0, 0.0, 0.0, 1.0)


def test_p_values_are_uniform_under_the_null() -> None:
    """Two models with the same expected score on every task (their differences are noise):
    over 200 data seeds the p-values do not depart from uniform (Kolmogorov-Smirnov)."""
    p_values = []
    for seed in range(200):
        rng = np.random.default_rng(1000 + seed)
        scores = _paired_data(rng, 20, 6, noise=0.2)
        p_values.append(_diff(scores, 20, 6, seed=seed, rounds=300)[3])
    assert stats.kstest(p_values, "uniform").pvalue > 0.01
    assert 0.01 <= np.mean(np.array(p_values) < 0.05) <= 0.10


def test_the_two_stages_spread_as_much_as_the_task_means() -> None:
    """Queries and tasks both drawn, with the shrinkage: the sd of the macro mean is the task
    means' sd / sqrt(T), as when tasks alone are drawn; without it, query noise counts twice."""
    rng = np.random.default_rng(12)
    scores = np.repeat(rng.normal(0.5, 0.05, 40), 8) + rng.normal(0, 0.3, 40 * 8)
    sizes = _tasks(40, 8)
    draws = macro_bootstrap(
        scores, sizes, _everything(40), rounds=20_000, rng=np.random.default_rng(13)
    )
    means = task_means(scores[:, None], sizes)[:, 0]
    assert _one(draws).std() == pytest.approx(means.std() / np.sqrt(40), rel=0.04)
    unshrunk = draws.stratum_sums[:, 0, 0, 0] / 40 + draws.query_noise[:, 0, 0]
    assert unshrunk.std() > 1.25 * _one(draws).std()


def test_task_clustering_widens_the_interval_and_keeps_its_coverage() -> None:
    """B's advantage differs from task to task (sd 0.1, true mean 0.03): the interval that
    resamples tasks is wider than the one that keeps them fixed, and over 150 draws of a
    benchmark from the same task population it covers the true advantage about 95% of the
    time, while the naive one misses it far more often."""
    covered = {"clustered": 0, "naive": 0}
    wider = 0
    for seed in range(150):
        rng = np.random.default_rng(5000 + seed)
        scores = _paired_data(rng, 30, 10, shift=0.03, task_spread=0.1, noise=0.05)
        _, c_low, c_high, _ = _diff(scores, 30, 10, seed=seed, rounds=300)
        _, n_low, n_high, _ = _diff(scores, 30, 10, seed=seed, rounds=300, resample_tasks=False)
        wider += (c_high - c_low) > 1.5 * (n_high - n_low)
        covered["clustered"] += c_low <= 0.03 <= c_high
        covered["naive"] += n_low <= 0.03 <= n_high
    assert wider == 150
    assert covered["clustered"] / 150 >= 0.88
    assert covered["naive"] / 150 <= 0.60


def test_bad_shapes_name_the_problem() -> None:
    with pytest.raises(ValueError, match="task 1 has none"):
        macro_bootstrap([1.0], [1, 0], _everything(2), rounds=2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="add up to 2, not 3"):
        macro_bootstrap([1.0] * 3, [1, 1], _everything(2), rounds=2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rounds"):
        macro_bootstrap([1.0], [1], _everything(1), rounds=0, rng=np.random.default_rng(0))


def test_a_seed_reproduces_the_rounds() -> None:
    rng = np.random.default_rng(11)
    scores = _paired_data(rng, 10, 5)
    sizes, groups = _tasks(10, 5), _everything(10)
    once = macro_bootstrap(scores, sizes, groups, rounds=50, rng=np.random.default_rng(3))
    again = macro_bootstrap(scores, sizes, groups, rounds=50, rng=np.random.default_rng(3))
    assert np.array_equal(_one(once, 1), _one(again, 1))
    other = macro_bootstrap(scores, sizes, groups, rounds=50, rng=np.random.default_rng(4))
    assert not np.array_equal(_one(once, 1), _one(other, 1))
