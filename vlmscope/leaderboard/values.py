"""Reading numbers out of summary JSON defensively, and showing them the same way everywhere.

Summaries come from several tracks and versions; a key that is missing or holds something that
is not a finite number must show as an empty cell, never raise, so every page goes through here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pandas.api.types import is_numeric_dtype

from vlmscope.shown_numbers import percent_number, percent_text

MISSING = float("nan")


def is_number(value: Any) -> bool:
    """A finite int or float (bool excluded: JSON `true` is not a score)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def number_at(data: Any, *keys: str) -> float | None:
    """`data[k1][k2]...` as a float, or None when a key is missing or the value is not a number."""
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return float(data) if is_number(data) else None


def percent(value: float | None) -> float:
    """A 0-1 rate as a percentage rounded for display (`percent_number`, the one rule the run's
    own tables read too); NaN (an empty cell) when missing."""
    return MISSING if value is None else percent_number(value)


def percent_bounds(lower: float, upper: float) -> str:
    """A 0-1 interval as `12.34 - 56.78` in percent, as precise as the numbers beside it."""
    return f"{percent_text(lower)} - {percent_text(upper)}"


def column_types(dtypes: Iterable[Any]) -> list[str]:
    """Gradio table datatypes: `number` for numeric columns, so they sort as numbers, and `str`
    for the rest, so cells are shown as text (never `html` or `markdown`)."""
    return ["number" if is_numeric_dtype(t) else "str" for t in dtypes]
