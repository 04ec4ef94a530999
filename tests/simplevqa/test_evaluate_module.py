"""The `simplevqa_factuality` evaluate module loads offline and adapts the metric functions."""

from __future__ import annotations

from pathlib import Path

import pytest

MODULE_DIR = Path(__file__).resolve().parents[2] / "evaluate_metrics" / "simplevqa_factuality"


def test_rates_groups_and_unparseable() -> None:
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(MODULE_DIR))
    result = metric.compute(
        predictions=["correct", "incorrect", "not_attempted", "correct", "judge_unparseable"],
        groups=["CN", "EN", "EN", "CN", "EN"],
        bootstrap_rounds=100,
        seed=1,
    )
    assert result["CO"] == pytest.approx(0.5) and result["CGA"] == pytest.approx(2 / 3)
    assert result["F"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert result["n_graded"] == 4 and result["n_judge_unparseable"] == 1
    assert result["by_group"]["EN"]["NA"] == pytest.approx(0.5)
    low, high = result["ci95"]["CO"]
    assert low <= 0.5 <= high
    again = metric.compute(predictions=["correct", "incorrect"], bootstrap_rounds=100, seed=1)
    assert again == metric.compute(
        predictions=["correct", "incorrect"], bootstrap_rounds=100, seed=1
    )


def test_unknown_grade_is_an_error() -> None:
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(MODULE_DIR))
    with pytest.raises(ValueError, match=r"predictions\[1\]: 'maybe' is not one of 'correct'"):
        metric.compute(predictions=["correct", "maybe"])
    with pytest.raises(ValueError, match=r"'judge_unparseable'; did you mean 'not_attempted'\?$"):
        metric.compute(predictions=["NOT_ATTEMPTED"])


def test_groups_are_one_label_per_item() -> None:
    """A string of the right length would pass for one label per character; labels that are
    not text are labelled as the track labels them."""
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(MODULE_DIR))
    with pytest.raises(ValueError, match="groups: a list"):
        metric.compute(predictions=["correct", "incorrect"], groups="EN")
    result = metric.compute(predictions=["correct", "incorrect"], groups=[1, 2])
    assert sorted(result["by_group"]) == ["1", "2"]


def test_nothing_graded_gives_null_rates() -> None:
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(MODULE_DIR))
    result = metric.compute(predictions=["judge_unparseable"] * 2, groups=["CN", "EN"])
    assert result["n_graded"] == 0 and result["CO"] is None and result["F"] is None
    assert result["ci95"] is None and result["note"].startswith("no item graded")
    assert result["by_group"]["CN"]["CGA"] is None


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"predictions": ["correct", 1]}, r"^predictions\[1\]: expected a string, got int 1"),
        ({"predictions": [None, "correct"]}, r"^predictions\[0\]: expected a string"),
        ({"groups": ["CN", None]}, r"^groups\[1\]: None is not a label"),
        ({"groups": ["CN"]}, r"^groups: 1 items, but there are 2 predictions"),
        ({"bootstrap_rounds": "10"}, r"^bootstrap_rounds: expected an integer >= 0"),
        ({"bootstrap_rounds": -5}, r"^bootstrap_rounds: expected an integer >= 0"),
        ({"seed": "0"}, r"^seed: expected an integer >= 0"),
    ],
)
def test_bad_items_and_arguments_are_named(arguments: dict[str, object], named: str) -> None:
    """A None label was rated as the group "None", a negative round count gave no interval,
    a text round count failed inside the bootstrap."""
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(MODULE_DIR))
    with pytest.raises(ValueError, match=named):
        metric.compute(**{"predictions": ["correct", "incorrect"], **arguments})
