"""Board filters, record loading, online Elo order and leaderboard agreement metrics."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ratings.arena_golden import records
from vlmscope.ratings import (
    BOARD_FILTERS,
    Battles,
    category_filter,
    compare_leaderboards,
    confidence_agreement,
    online_elo,
    select_battles,
    separability,
)
from vlmscope.ratings.boards.agreement import brier_score, pairwise_accuracy


def record(**fields: object) -> dict[str, object]:
    base = {
        "model_a": "a",
        "model_b": "b",
        "winner": "model_a",
        "anony": True,
        "language": "English",
        "judge": "u1",
        "tstamp": 0.0,
        "turn": 1,
        "is_preset": False,
    }
    base.update(fields)
    return base


def test_select_battles_order_and_filters() -> None:
    rows = [
        record(tstamp=3.0),
        record(tstamp=1.0, winner="tie (bothbad)"),
        record(tstamp=2.0, anony=False),
        record(tstamp=0.5, language="unknown"),
        record(tstamp=4.0, model_b="c"),
    ]
    kept = select_battles(rows, exclude_unknown_lang=True, exclude_models=["c"])
    assert [r["tstamp"] for r in kept] == [1.0, 3.0]
    assert [r["tstamp"] for r in select_battles(rows, exclude_tie=True, langs=["English"])] == [
        3.0,
        4.0,
    ]


def test_daily_vote_cap_keeps_first_votes_per_user_and_day() -> None:
    day = 86400.0
    rows = [
        record(tstamp=t, judge=j)
        for t, j in [(1, "u1"), (2, "u1"), (3, "u2"), (day + 1, "u1"), (4, "u1")]
    ]
    kept = select_battles(rows, daily_vote_per_user=2)
    assert [(r["judge"], r["tstamp"]) for r in kept] == [
        ("u1", 1),
        ("u1", 2),
        ("u2", 3),
        ("u1", day + 1),
    ]


def test_golden_board_sizes() -> None:
    recs = records()
    assert len(select_battles(recs)) == 4772
    assert len(select_battles(recs, filter_func=category_filter("humor"))) == 257
    assert len(select_battles(recs, filter_func=BOARD_FILTERS["is_preset"])) == 4405
    multi = select_battles(recs, filter_func=BOARD_FILTERS["multiturn"])
    assert multi and all(r["turn"] > 1 for r in multi)


def test_online_elo_depends_on_order() -> None:
    forward = Battles.from_names(["a", "a"], ["b", "b"], [1.0, 0.0])
    backward = Battles.from_names(["a", "a"], ["b", "b"], [0.0, 1.0])
    assert online_elo(forward)[0] < 1000.0 < online_elo(backward)[0]
    assert online_elo(forward)[0] + online_elo(forward)[1] == pytest.approx(2000.0)


def test_separability_and_confidence_agreement() -> None:
    lower, upper = np.array([10.0, 5.0, 0.0]), np.array([12.0, 11.0, 4.0])
    assert separability(lower, upper) == pytest.approx(2 / 3)
    same = confidence_agreement(lower, upper, lower, upper)
    assert same == pytest.approx(2 / 3)
    flipped = confidence_agreement(lower, upper, -upper, -lower)
    assert flipped == pytest.approx(-2 / 3)


def test_compare_leaderboards_uses_shared_models() -> None:
    x = {
        "a": (3.0, 2.6, 3.4),
        "b": (2.0, 1.6, 2.4),
        "c": (1.0, 0.6, 1.4),
        "only_x": (0.0, 0.0, 0.0),
    }
    y = {"c": (10.0, 9.0, 11.0), "b": (20.0, 19.0, 21.0), "a": (15.0, 14.0, 16.0)}
    report = compare_leaderboards(x, y)
    assert report.models == ("a", "b", "c")
    assert report.spearman == pytest.approx(0.5)
    assert report.kendall_tau == pytest.approx(1 / 3)
    assert report.separability_x == 1.0 and report.separability_y == 1.0
    assert report.confidence_agreement == pytest.approx(1 / 3)
    # y orders b > a > c; x orders a > b > c: (a, b) wrong, (a, c) and (b, c) right
    assert report.pairwise_accuracy == pytest.approx(2 / 3)
    # forecasts 1 / (1 + 10 ** (-1 / 400)) for a 1-point gap, 2 points for (a, c)
    p1, p2 = 1 / (1 + 10 ** (-1 / 400)), 1 / (1 + 10 ** (-2 / 400))
    assert report.brier == pytest.approx(((p1 - 0) ** 2 + (p2 - 1) ** 2 + (p1 - 1) ** 2) / 3)


def test_pairwise_accuracy_and_brier_by_hand() -> None:
    truth = np.array([1200.0, 1100.0, 1000.0])
    assert pairwise_accuracy(truth, truth) == 1.0
    assert pairwise_accuracy(-truth, truth) == 0.0
    # a tie in x does not call the pair; a tie in y leaves the pair out
    assert pairwise_accuracy(np.array([1.0, 1.0, 0.0]), truth) == pytest.approx(2 / 3)
    assert pairwise_accuracy(truth, np.array([5.0, 5.0, 0.0])) == 1.0
    assert np.isnan(pairwise_accuracy(truth, np.zeros(3)))
    # equal ratings forecast 1/2: a coin's Brier score
    assert brier_score(np.zeros(3), truth) == pytest.approx(0.25)
    # 400 points apart forecasts 10/11 for the stronger model
    gap = np.array([400.0, 0.0])
    assert brier_score(gap, np.array([1.0, 0.0])) == pytest.approx((1 / 11) ** 2)
    assert brier_score(gap, np.array([0.0, 1.0])) == pytest.approx((10 / 11) ** 2)
    # a scale of 40 points reads the same gap as ten factors of ten
    assert brier_score(gap / 10, np.array([1.0, 0.0]), scale=40) == pytest.approx((1 / 11) ** 2)
