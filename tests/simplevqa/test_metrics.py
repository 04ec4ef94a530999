"""Factuality metrics: data cases, identities, empty groups, seeded bootstrap."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vlmscope.tracks.simplevqa.grading import Grade
from vlmscope.tracks.simplevqa.metrics import (
    NO_GRADE_NOTE,
    bootstrap_rates,
    factuality_rates,
    factuality_table,
    group_rng,
    grouped_tables,
)

CASES = json.loads(
    (Path(__file__).parent / "cases" / "metric_cases.json").read_text(encoding="utf-8")
)
C, W, N, U = Grade.CORRECT, Grade.INCORRECT, Grade.NOT_ATTEMPTED, Grade.UNPARSEABLE  # W: wrong


@pytest.mark.parametrize("case", CASES, ids=[str(c["counts"]) for c in CASES])
def test_metric_cases(case: dict) -> None:
    assert factuality_rates(*case["counts"]) == pytest.approx(case["expected"])


@pytest.mark.parametrize("counts", [(3, 1, 1), (0, 2, 5), (7, 0, 0), (1, 1, 1), (0, 0, 3)])
def test_identities(counts: tuple[int, int, int]) -> None:
    rates = factuality_rates(*counts)
    n = sum(counts)
    # CO, IN, NA are the shares rounded to 4 decimals (so they sum to 1 within that rounding)...
    assert [rates[k] for k in ("CO", "IN", "NA")] == [round(c / n, 4) for c in counts]
    assert rates["CO"] + rates["IN"] + rates["NA"] == pytest.approx(1.0, abs=1.5e-4)
    # ...and CGA and F are derived from the rounded rates, as the official script does.
    attempted = round(rates["CO"] + rates["IN"], 4)
    assert rates["CGA"] == pytest.approx(rates["CO"] / attempted if attempted else 0.0)
    denom = rates["CO"] + rates["CGA"]
    assert rates["F"] == pytest.approx(2 * rates["CO"] * rates["CGA"] / denom if denom else 0.0)


def test_cga_comes_from_the_rounded_rates() -> None:
    """19 correct, 32 incorrect: CO 0.3725 and IN 0.6275 after rounding, so CGA is 0.3725,
    which prints as 0.372 where the unrounded 19 / 51 = 0.37255 prints as 0.373."""
    rates = factuality_rates(19, 32, 0)
    assert rates["CGA"] == rates["CO"] == 0.3725 and f"{rates['CGA']:.3f}" == "0.372"


def test_unparseable_grades_are_counted_but_not_rated() -> None:
    table = factuality_table([C, C, W, U, U], rounds=0, rng=np.random.default_rng(0))
    assert table["n_graded"] == 3 and table["n_judge_unparseable"] == 2
    assert table["CO"] == 0.6667 and table["ci95"] is None
    assert table["counts"] == {"correct": 2, "incorrect": 1, "not_attempted": 0}


def test_empty_group_has_null_rates_a_note_and_no_ci() -> None:
    table = factuality_table([U], rounds=100, rng=np.random.default_rng(0))
    assert table["n_graded"] == 0 and table["ci95"] is None
    assert all(table[k] is None for k in ("CO", "IN", "NA", "CGA", "F"))
    assert table["note"] == NO_GRADE_NOTE
    assert "note" not in factuality_table([C], rounds=0, rng=np.random.default_rng(0))


def test_groups_with_nothing_graded_have_null_rates() -> None:
    tables = grouped_tables([C, U, U], ["EN", "CN", "CN"], rounds=50, seed=0)
    assert tables["EN"]["CO"] == 1.0 and tables["EN"]["ci95"] is not None
    cn = tables["CN"]
    assert cn["n_graded"] == 0 and cn["n_judge_unparseable"] == 2 and cn["ci95"] is None
    assert [cn[k] for k in ("F", "CO", "CGA", "NA", "IN")] == [None] * 5


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    first = bootstrap_rates(30, 10, 10, rounds=500, rng=np.random.default_rng(7))
    again = bootstrap_rates(30, 10, 10, rounds=500, rng=np.random.default_rng(7))
    other = bootstrap_rates(30, 10, 10, rounds=500, rng=np.random.default_rng(8))
    assert first == again and first != other
    assert first is not None
    rates = factuality_rates(30, 10, 10)
    for name, (low, high) in first.items():
        assert low <= rates[name] <= high and low < high


def test_groups_bucket_empty_labels_and_do_not_depend_on_each_other() -> None:
    grades = [C, W, N, C, U, C]
    tables = grouped_tables(grades, ["EN", "EN", "", "CN", "CN", "EN"], rounds=200, seed=3)
    assert list(tables) == ["(none)", "CN", "EN"]
    assert tables["EN"]["CO"] == 0.6667 and tables["CN"]["n_judge_unparseable"] == 1
    alone = grouped_tables([C, W, C], ["EN", "EN", "EN"], rounds=200, seed=3)
    assert alone["EN"]["ci95"] == tables["EN"]["ci95"]
    assert group_rng(3, "EN").integers(1000) == group_rng(3, "EN").integers(1000)


def test_group_labels_must_match_grades() -> None:
    with pytest.raises(ValueError, match="2 grades but 1 group labels"):
        grouped_tables([C, W], ["EN"], rounds=0, seed=0)
