"""Numerical metrics of MEGA-Bench (official semantics, quirks included).

`general_single_numerical_match` reads both sides as numbers the official way: strip `\\( \\)` and
`\\[ \\]`, keep what follows the first "=", "≈" or "\\approx", replace π by 3.14 and "%" by "/100",
delete a few unit symbols, print the result of sympy's `parse_latex`, `float()` it, else evaluate it as
a Python expression (the safe `arithmetic` module replaces the official subprocess `eval`). Numbers
match within 1 % of the target; lists match element-wise after sorting (tuples never: QUIRK); anything
else falls back to `simple_str_match`. Consequences kept: "1e3" != "1000", `\\sqrt{2}` != 1.414,
"50%" == 0.5, "x = 5" == 5. Conversions are cached per string (sympy parsing dominates the cost).
The official 10 s alarm around the boxed match is emulated only where its `\\boxed{` search alone
certainly outlasts it (see `boxed`); a slow number parse under it is scored as if it finished.
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings
from numbers import Number
from typing import Any

import numpy as np

from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.arithmetic import EvaluationTimeout, evaluate_expression
from vlmscope.metrics.megabench.boxed import OFFICIAL_ALARM_TRIES, boxed_content
from vlmscope.metrics.megabench.caches import cached
from vlmscope.metrics.megabench.conversions import str_to_list
from vlmscope.metrics.megabench.latex import parse_latex_cached
from vlmscope.metrics.megabench.string_match import simple_str_match

_RMSE_MAX = 0.1
_ANGLE_MAE_MAX = 10.0
_RELATIVE_TOLERANCE = 0.01
_INLINE_MATH = re.compile(r"\\\((.*?)\\\)")
_DISPLAY_MATH = re.compile(r"\\\[(.*?)\\\]")
_ASSIGNMENT = re.compile(r"(?:=|≈|\\approx)\s*(.+)")


def number_rel_diff_ratio(response: Any, target: Any) -> float:
    """max(0, 1 - |pred - gt| / |gt|); the prediction must be a number (bools count)."""
    try:
        predicted = response if isinstance(response, Number) else python_literal(response)
        if not isinstance(predicted, Number):
            return 0
        expected = python_literal(target)
        return max(0, 1 - math.fabs((predicted - expected) / expected))
    except (SyntaxError, ValueError):
        return 0


def positive_int_match(response: Any, target: Any) -> int:
    """Equality of two ints read as literals; -1 (field ignored) when both are <= 0.
    JSON ints are not strings and fail to parse (0); "True" counts as 1."""
    try:
        predicted = python_literal(response)
    except (SyntaxError, ValueError):
        return 0
    if not target:
        return 0
    expected = python_literal(target)
    if not isinstance(expected, int):
        raise TypeError("positive_int_match needs an integer target")
    if not isinstance(predicted, int):
        return 0
    if expected <= 0 and predicted <= 0:
        return -1
    return 1 if predicted == expected else 0


def normalized_rmse(response: Any, target: Any) -> Any:
    """1 - clip(|pred - gt|, 0, 0.1) / 0.1 for two numbers read as literals; anything else 0."""
    try:
        error = (python_literal(response) - python_literal(target)) ** 2
        return 1 - np.clip(np.sqrt(error), 0.0, _RMSE_MAX) / _RMSE_MAX
    except Exception:
        return 0


def angle_seq_float_rmse(response: Any, target: Any) -> Any:
    """1 - clip(mean absolute error, 0, 10) / 10 over two equally long number lists."""
    responses = str_to_list(response)
    targets = str_to_list(target)
    if len(responses) != len(targets):
        return 0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            mean_error = np.sqrt((np.array(responses) - np.array(targets)) ** 2).sum() / len(
                targets
            )
        except Exception:
            return 0
        score = 1 - np.clip(mean_error, 0.0, _ANGLE_MAE_MAX) / _ANGLE_MAE_MAX
    return 0 if math.isnan(score) else score


def _replace_pi(text: str) -> str:
    text = text.replace("\\pi", "π")
    text = re.sub(r"(?<![\d}])\\?π", "3.14", text)
    text = re.sub(r"(\d)(\\?π)", r"\1*3.14", text)
    text = re.sub(r"\{(\\?π)\}", "3.14", text)
    return re.sub(r"\*(\\?π)", "*3.14", text)


def _clean_units(text: str) -> str:
    text = _replace_pi(text).replace("%", "/100")
    for unit in ("$", "¥", "°C", " C", "°"):
        text = text.replace(unit, "")
    return text


def _as_float(value: Any) -> Any:
    try:
        number = float(value)
    except Exception:
        return None
    return round(number) if number.is_integer() else number


@cached
def _number_from_text(text: str) -> Any:
    text = _clean_units(text)
    with contextlib.suppress(Exception):
        text = str(parse_latex_cached(text))
    number = _as_float(text)
    if number is not None:
        return number
    try:
        value = evaluate_expression(text)
    except EvaluationTimeout:
        return None
    except Exception:
        return None
    if isinstance(value, (list, tuple)):
        return value
    return _as_float(value)


def _close(predicted: Any, expected: Any) -> bool:
    try:
        if math.isnan(predicted):
            return False
        tolerance = abs(expected) * _RELATIVE_TOLERANCE
        return bool(expected - tolerance <= predicted <= expected + tolerance)
    except Exception:
        return False


def _lists_close(predicted: Any, expected: Any) -> bool:
    if not isinstance(predicted, list) or len(predicted) != len(expected):
        return False
    if any(not isinstance(item, (int, float)) for item in predicted):
        return False
    return all(_close(p, g) for p, g in zip(sorted(predicted), sorted(expected), strict=False))


def _strip_math_delimiters(text: str) -> str:
    return _DISPLAY_MATH.sub(r"\1", _INLINE_MATH.sub(r"\1", text))


def _after_assignment(text: str) -> str:
    match = _ASSIGNMENT.search(text)
    return match.group(1).strip() if match else text


def general_single_numerical_match(response: Any, target: Any) -> float:
    """Numbers within 1 % of the target, lists element-wise, else `simple_str_match`."""
    response = response if isinstance(response, str) else str(response)
    response = _after_assignment(_strip_math_delimiters(response))
    target = _after_assignment(_strip_math_delimiters(target))
    predicted = _number_from_text(response)
    expected = _number_from_text(target)
    if predicted is None or expected is None:
        return simple_str_match(response, target)
    both_lists = isinstance(predicted, list) and isinstance(expected, list)
    both_tuples = isinstance(predicted, tuple) and isinstance(expected, tuple)
    if both_lists or both_tuples:
        return float(_lists_close(predicted, expected))
    return float(_close(predicted, expected))


def boxed_single_numerical_match(response: Any, target: Any) -> float:
    """General numerical match of the first `\\boxed{...}` contents (one brace nesting level); where
    the official search of the two would run into its alarm, `simple_str_match` of the raw texts."""
    response = response if isinstance(response, str) else str(response)
    response_content, response_tries = boxed_content(response)
    target_content, target_tries = boxed_content(target)
    if response_tries + target_tries >= OFFICIAL_ALARM_TRIES:
        return simple_str_match(response, target)
    return general_single_numerical_match(response_content, target_content)
