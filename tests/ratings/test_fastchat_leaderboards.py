"""Every board of fastchat_leaderboards.json through :func:`vlmscope.ratings.report`.

Each board runs twice: with the exact solver (points within 0.1, quantiles within 0.2)
and with ``solver="fastchat"`` (FastChat's optimiser path: variance to 1e-9 relative).
Entries of separable models (README skip list) are skipped: their reference value is
wherever the reference optimiser stopped on the way to infinity.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from tests.ratings.arena_golden import SEPARABLE, golden, records
from vlmscope.ratings import BOARD_FILTERS, VISION_CATEGORIES, Leaderboard, category_filter, report
from vlmscope.ratings.inputs.filters import RecordFilter

BOARDS = golden("fastchat_leaderboards.json")

# Golden kwargs name filters by their upstream spelling.
FILTERS: dict[str, RecordFilter] = {
    "full": BOARD_FILTERS["full"],
    "dedup": BOARD_FILTERS["dedup"],
    "english": BOARD_FILTERS["english"],
    "is_not_preset": BOARD_FILTERS["is_preset"],
    **{tag: category_filter(name) for name, (tag, _flag) in VISION_CATEGORIES.items()},
}


@cache
def board(key: str, solver: str) -> Leaderboard:
    kwargs = dict(BOARDS[key]["kwargs"])
    filter_func = FILTERS[kwargs.pop("filter_func")]
    return report(records(), filter_func=filter_func, num_bootstrap=100, solver=solver, **kwargs)  # type: ignore[arg-type]


def kept(key: str, column: dict[str, float]) -> dict[str, float]:
    return {m: v for m, v in column.items() if key not in SEPARABLE.get(m, set())}


def check(key: str, ours: dict[str, Any], column: str, atol: float, rtol: float = 0.0) -> None:
    expected = kept(key, BOARDS[key][column])
    got = np.array([ours[column][m] for m in expected])
    np.testing.assert_allclose(got, list(expected.values()), rtol=rtol, atol=atol, err_msg=column)


@pytest.mark.parametrize("key", sorted(BOARDS))
def test_board_exact_solver(key: str) -> None:
    ours = board(key, "newton").to_dict()
    ref = BOARDS[key]
    assert ours["n_battles"] == ref["n_battles"]
    assert set(ours["rating"]) == set(ref["rating"])
    assert ours["num_battles"] == ref["num_battles"]
    check(key, ours, "elo_rating_online", 1e-9)
    check(key, ours, "rating", 0.1)
    check(key, ours, "rating_q025", 0.2)
    check(key, ours, "rating_q975", 0.2)
    check(key, ours, "variance", 0.0, rtol=5e-3)
    check(key, ours, "final_ranking", 0.0)
    if "style_coef_final" in ref:
        np.testing.assert_allclose(ours["style_coef_final"], ref["style_coef_final"], atol=2e-4)
        np.testing.assert_allclose(
            ours["style_coef_bootstrap_median"], ref["style_coef_bootstrap_median"], atol=2e-4
        )


@pytest.mark.parametrize("key", sorted(BOARDS))
def test_board_reference_solver(key: str) -> None:
    ours = board(key, "fastchat").to_dict()
    ref = BOARDS[key]
    check(key, ours, "rating", 1e-6)
    check(key, ours, "rating_q025", 1e-6)
    check(key, ours, "rating_q975", 1e-6)
    check(key, ours, "variance", 1e-12, rtol=1e-9)
    check(key, ours, "final_ranking", 0.0)
    if "style_coef_final" in ref:
        np.testing.assert_allclose(ours["style_coef_final"], ref["style_coef_final"], atol=1e-9)
        np.testing.assert_allclose(
            ours["style_coef_bootstrap_median"], ref["style_coef_bootstrap_median"], atol=1e-9
        )
