"""McNemar's exact test against its closed form and scipy, and its behaviour under the null."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from scipy import stats

from vlmscope.stats.mcnemar import mcnemar


def _closed_form(b: int, c: int) -> float:
    n = b + c
    tail = sum(comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (1, 0), (3, 9), (9, 3), (10, 10), (25, 40), (0, 7)])
def test_matches_the_closed_form_and_scipy(b: int, c: int) -> None:
    result = mcnemar(b, c)
    assert result.p_value == pytest.approx(_closed_form(b, c), rel=1e-12, abs=1e-15)
    if b + c:
        assert result.p_value == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)
    assert (result.only_a, result.only_b) == (b, c)


def _paired_right(rng: np.random.Generator, n: int, p_a: float, p_b: float):  # noqa: ANN202
    """Right/wrong of two models on n items, correlated through a shared item difficulty."""
    hard = rng.random(n) < 0.3
    a = rng.random(n) < np.where(hard, p_a - 0.2, p_a + 0.1)
    b = rng.random(n) < np.where(hard, p_b - 0.2, p_b + 0.1)
    return int((a & ~b).sum()), int((~a & b).sum())


def test_a_planted_difference_is_found() -> None:
    only_a, only_b = _paired_right(np.random.default_rng(0), 400, 0.7, 0.5)
    assert only_a > only_b and mcnemar(only_a, only_b).p_value < 1e-6


def test_identical_models_have_no_discordant_items() -> None:
    assert mcnemar(0, 0).p_value == 1.0


def test_under_the_null_it_rejects_no_more_often_than_its_level() -> None:
    """Equal accuracy: over 2000 seeds the exact test rejects at most as often as its level
    (it is conservative), and with hundreds of items not much less often."""
    p_values = np.array(
        [
            mcnemar(*_paired_right(np.random.default_rng(seed), 500, 0.6, 0.6)).p_value
            for seed in range(2000)
        ]
    )
    for level in (0.01, 0.05, 0.1, 0.2):
        share = np.mean(p_values <= level)
        assert share <= level + 3 * np.sqrt(level * (1 - level) / 2000)
        assert share >= 0.6 * level


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        mcnemar(-1, 2)
