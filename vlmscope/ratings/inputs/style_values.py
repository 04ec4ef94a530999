"""One answer-metadata value read as a style count, with the kind upstream treats differently.

The judge-vs-baseline references read a count with one line each, and the lines differ:

* arena-hard v2 (``print_leaderboard_with_style_features``): ``v if isinstance(v, int) else
  sum(v.values())``. A boolean is an int to Python, so ``true`` is read as 1; a float is summed
  with ``.values()`` and stops it (``AttributeError: 'float' object has no attribute 'values'``).
* arena-hard v0.1 and ProBench (``construct_style_matrices``): ``x if type(x) is int else
  sum(x.values())``. A boolean's type is not ``int``, so a boolean stops it as a float does.
* All three sum a dict's values as they are: booleans in a dict count 1 and 0, floats in a dict
  give a float (not truncated).

Reading therefore keeps the number every reference that gives one would give, and the kind of
value (`BOOLEAN`, `FLOAT`, `BOOLEANS_IN_A_DICT`) so each scorer can stop, or note the count,
where its reference does (:mod:`vlmscope.ratings.boards.style_value_checks`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from vlmscope.ratings.inputs.row_checks import count_total

BOOLEAN = "a boolean"
FLOAT = "a float"
BOOLEANS_IN_A_DICT = "a dict with booleans"


def read_count(value: Any, name: str) -> tuple[int | float, str | None]:
    """The count a reference that gives a number reads from ``value``, and its odd kind (None for
    an int or a dict of ints). A float sum stays a float; an integral one is an int. Anything
    else (a string, null, a negative or non-finite number) raises as :func:`count_total` does."""
    kind = type(value)
    if kind is int and value >= 0:
        return value, None
    if kind is bool:
        return int(value), BOOLEAN
    if kind is float and math.isfinite(value) and value >= 0:
        return value, FLOAT
    if isinstance(value, Mapping) and any(type(item) is bool for item in value.values()):
        plain = {key: int(item) if type(item) is bool else item for key, item in value.items()}
        return _as_number(count_total(plain, name), plain), BOOLEANS_IN_A_DICT
    return _as_number(count_total(value, name), value), None


def _as_number(total: float, value: Any) -> int | float:
    """An int when ``value`` is a dict of ints (as Python's ``sum`` gives), else the float (a
    bare int never gets here: :func:`read_count` returns it, or ``count_total`` refuses it)."""
    if isinstance(value, Mapping) and all(type(item) is int for item in value.values()):
        return int(total)
    return total
