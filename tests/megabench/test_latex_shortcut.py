"""`latex_shortcut` claims only outcomes sympy's `parse_latex` gives: a differential sample (the
full 5,000-text comparison and the speed ratio are `benchmarks/megabench_latex_shortcut.py`)."""

from __future__ import annotations

import inspect
import sys
from typing import Any

import pytest
import sympy
from sympy.parsing.latex import parse_latex

from tests.megabench.latex_inputs import differential_inputs
from vlmscope.metrics.megabench import latex
from vlmscope.metrics.megabench.latex_shortcut import known_parse


def _outcome(text: str) -> tuple[str, Any]:
    try:
        return "value", parse_latex(text)
    except Exception as error:
        return "error", type(error)


def _claim(text: str) -> tuple[str, Any] | None:
    known = known_parse(text)
    if known is None:
        return None
    expression, error = known
    return ("error", type(error)) if error is not None else ("value", expression)


def _assert_same(claim: tuple[str, Any], truth: tuple[str, Any], text: str) -> None:
    assert claim[0] == truth[0], text
    if claim[0] == "error":
        assert claim[1] is truth[1], text
    else:
        assert type(claim[1]) is type(truth[1]), text
        assert sympy.srepr(claim[1]) == sympy.srepr(truth[1]), text


def test_every_claim_on_a_generated_sample_is_sympys_outcome() -> None:
    texts = differential_inputs(7, 400)
    claimed = 0
    for text in texts:
        claim = _claim(text)
        if claim is not None:
            claimed += 1
            _assert_same(claim, _outcome(text), text)
    assert claimed >= 10  # digit-only texts are in the sample


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 2\n3", "Integer(123)"),
        ("  007 ", "SympifyError"),  # a leading zero is no Python literal: sympy raises
        ("1" * 5000, "SympifyError"),  # past Python's 4,300-digit limit, as sympy raises it
    ],
)
def test_digit_only_texts_read_as_sympys_number(text: str, expected: str) -> None:
    claim = _claim(text)
    assert claim is not None
    shown = claim[1].__name__ if claim[0] == "error" else sympy.srepr(claim[1])
    assert shown == expected
    if len(text) < 100:
        _assert_same(claim, _outcome(text), text)


def _past_a_lowered_limit(unit: str, factors: int, room: int) -> tuple[str, Any, Any]:
    """`unit` repeated past a recursion limit `room` frames above this one (`factors` per
    unit), with the shortcut's claim and sympy's own outcome taken under that limit."""
    limit = sys.getrecursionlimit()
    low = len(inspect.stack(0)) + room
    text = unit * (low // factors + 1)
    sys.setrecursionlimit(low)
    try:
        return text, _claim(text), _outcome(text)
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("unit", ["x y ", "1 and ", "d x ", "a1 "])
def test_runs_past_the_recursion_limit_end_in_recursion_error_as_in_sympy(unit: str) -> None:
    factors = {"x y ": 2, "1 and ": 4, "d x ": 1, "a1 ": 2}[unit]
    text, claim, truth = _past_a_lowered_limit(unit, factors, room=120)
    assert claim == ("error", RecursionError)
    _assert_same(claim, truth, text)


@pytest.mark.parametrize(
    "text",
    [
        "x y " * 400,  # below the limit: the outcome depends on the caller's depth
        "x y " * 1200 + ".",  # a character outside the alphabet
        "\\frac{1}{2}",
        "a b c",
        "1" * 700 + " a" * 1200,  # a number too long to rule out an earlier error
        "x 01 " * 1200,  # sympy raises SympifyError at the first `01`, before the recursion
        "a 0 0 " * 1200,  # `00` converts, but a leading zero is left to the parser all the same
        "",
    ],
)
def test_other_texts_are_left_to_the_parser(text: str) -> None:
    assert known_parse(text) is None


def test_a_leading_zero_in_a_long_run_ends_as_in_sympy() -> None:
    # room for sympify's own frames at the first `01`
    text, claim, truth = _past_a_lowered_limit("x 01 ", 2, room=300)
    assert truth[0] == "error"
    assert truth[1].__name__ == "SympifyError"
    assert claim is None


def test_the_cached_parse_takes_the_shortcut() -> None:
    text = "the answer is " * 400
    assert known_parse(text) is not None
    with pytest.raises(RecursionError):
        latex.parse_latex_cached(text)
    with pytest.raises(RecursionError):
        latex.latex_expr_equality("\\(x\\) \\[y\\] " * 800, "2")
    assert latex.parse_latex_cached("12 34") == sympy.Integer(1234)
