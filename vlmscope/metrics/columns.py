"""Checks on the columns a metric is handed, before anything converts them.

The `evaluate` modules under `evaluate_metrics/` receive plain Python lists. `evaluate` checks
only the first item against the declared feature and Arrow then casts the rest: a number in row
5 became the text "5", a list its repr, and a None scored 0, so a wrong input gave a plausible
score. These functions look at every item first and raise ValueError naming the column and the
row, so the modules (which only adapt) refuse what they cannot score as a user would expect.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any


def column(name: str, values: Any) -> Sequence[Any]:
    """`values` as a sequence of items; a lone string (whose characters would pass for items)
    or a non-sequence is an error naming the column."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        if hasattr(values, "tolist"):  # a numpy array
            return list(values.tolist())
        raise ValueError(f"{name}: a list with one item per row, not {_shown(values)}")
    return values


def text_column(name: str, values: Any, *, hint: str = "") -> list[str]:
    """Every item of the column is a string; the first that is not is named by its row, followed
    by `hint` (how such a value may be given instead), if any."""
    items = column(name, values)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            shown = f"{name}[{index}]: expected a string, got {_shown(item)}"
            raise ValueError(f"{shown} ({hint})" if hint else shown)
    return list(items)


def answer_dicts(name: str, values: Any) -> list[dict[str, Any]]:
    """Answer dicts, each given as a dict or as the JSON text of one (how they travel through
    `evaluate`); anything else is named by its row."""
    wanted = "a dict (field -> gold value)"
    answers = []
    for index, item in enumerate(column(name, values)):
        value = _decoded(f"{name}[{index}]", item, wanted) if isinstance(item, str) else item
        if not isinstance(value, dict):
            raise ValueError(f"{name}[{index}]: expected {wanted}, got {_shown(item)}")
        answers.append(value)
    return answers


def json_column(name: str, values: Any) -> list[Any]:
    """The values a column holds as JSON text, one per row (how values that are not all text, a
    dict or None among strings, travel through `evaluate`'s string columns); an item that is not
    a string, or not JSON, is named by its row."""
    items = text_column(name, values)
    return [_decoded(f"{name}[{index}]", item, "JSON text") for index, item in enumerate(items)]


def _decoded(where: str, text: str, wanted: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{where}: expected {wanted}, got text that is not JSON ({error.msg} at "
            f"character {error.pos}): {text[:80]!r}"
        ) from None


def same_length(rows: int, columns: Mapping[str, Sequence[Any] | None]) -> None:
    """Each optional per-row column given has `rows` items (as many as the predictions)."""
    for name, values in columns.items():
        if values is not None and len(column(name, values)) != rows:
            raise ValueError(
                f"{name}: {len(values)} items, but there are {rows} predictions (one per row)"
            )


def whole_number(name: str, value: Any, *, minimum: int) -> int:
    """An integer argument (rounds, seed; a numpy integer too) of at least `minimum`, as an int;
    a bool, a float or text is refused."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {_shown(value)}")
    return int(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 80 else text[:77] + '...'}"
