"""The MEGA-Bench `evaluate` module loads offline and adapts the metric registry."""

from __future__ import annotations

from pathlib import Path

import pytest

MODULE_DIR = Path(__file__).resolve().parents[2] / "evaluate_metrics" / "megabench"


@pytest.fixture(scope="module")
def evaluate_lib():  # type: ignore[no-untyped-def]
    return pytest.importorskip("evaluate")


def test_exact_and_simple_string_match(evaluate_lib) -> None:  # type: ignore[no-untyped-def]
    exact = evaluate_lib.load(str(MODULE_DIR), "exact_str_match")
    result = exact.compute(
        predictions=["(B) dog", "Paris.", "Because"], references=["B", "Paris", "B"]
    )
    assert result["scores"] == [1.0, 0.0, 1.0]
    assert result["score"] == pytest.approx(2 / 3)
    simple = evaluate_lib.load(str(MODULE_DIR), "simple_str_match")
    assert simple.compute(predictions=["Paris."], references=["paris"])["score"] == 1.0


def test_ignored_fields_and_errors_are_reported(evaluate_lib) -> None:  # type: ignore[no-untyped-def]
    positive = evaluate_lib.load(str(MODULE_DIR), "positive_int_match")
    result = positive.compute(predictions=["0", "2", "3"], references=["-3", "2", "1.5"])
    assert result["scores"] == [-1.0, 1.0, 0.0]
    assert result["score"] == pytest.approx(0.5)
    assert result["errors"][0] is None and result["errors"][2].startswith("TypeError")


def test_eval_context_metric(evaluate_lib) -> None:  # type: ignore[no-untyped-def]
    in_box = evaluate_lib.load(str(MODULE_DIR), "xml_norm_point_in_bbox")
    result = in_box.compute(
        predictions=["<point>0.2, 0.2</point>", "<point>0.9, 0.9</point>"],
        references=["", ""],
        eval_context=[{"bounding_boxes": ["(0.1, 0.1, 0.3, 0.3)"]}] * 2,
    )
    assert result["scores"] == [1.0, 0.0]


def test_unknown_metric_is_rejected(evaluate_lib) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KeyError):
        evaluate_lib.load(str(MODULE_DIR), "no_such_metric")
    with pytest.raises(KeyError, match="'exact_str_matc'; did you mean 'exact_str_match'\\?"):
        evaluate_lib.load(str(MODULE_DIR), "exact_str_matc")


@pytest.mark.parametrize(
    ("predictions", "references", "named"),
    [
        (["B", 1], ["B", "1"], r"predictions\[1\]: expected a string, got int 1"),
        (["B", None], ["B", "B"], r"predictions\[1\]: expected a string, got NoneType"),
        ([None], ["B"], r"predictions\[0\]: expected a string"),
        (["B", "B"], ["B", ["B"]], r"references\[1\]: expected a string, got list"),
        ("BB", ["B", "B"], "predictions: a list with one item per row, not str"),
    ],
)
def test_items_that_are_not_text_are_named_not_cast(  # type: ignore[no-untyped-def]
    evaluate_lib, predictions, references, named
) -> None:
    """`evaluate` checks only the first item and Arrow casts the rest: 1 scored as "1"."""
    exact = evaluate_lib.load(str(MODULE_DIR), "exact_str_match")
    with pytest.raises(ValueError, match=named):
        exact.compute(predictions=predictions, references=references)


def test_eval_context_of_another_length_is_named(evaluate_lib) -> None:  # type: ignore[no-untyped-def]
    exact = evaluate_lib.load(str(MODULE_DIR), "exact_str_match")
    with pytest.raises(ValueError, match="eval_context: 2 items, but there are 1 predictions"):
        exact.compute(predictions=["B"], references=["B"], eval_context=[{}, {}])
