"""Where each judge-vs-baseline reference stops on a count, and where it silently counts a boolean.

The kinds of value and what each reference does with them are in
:mod:`vlmscope.ratings.inputs.style_values` (found by running the official code; the cases are in
``tests/ratings/official_sweep/style_feature_cases.json``, ``odd_count_values``). Here a value a
reference stops on is a ``ValueError`` naming the file and line, the answer (uid, model,
baseline), the side and the key, raised before any fit; a boolean a reference reads as a count is
scored as it is there and noted on the board, once per side and key with the first answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Protocol

from vlmscope.ratings.inputs.row_checks import RowPlace
from vlmscope.ratings.inputs.style_values import BOOLEAN, BOOLEANS_IN_A_DICT, FLOAT
from vlmscope.ratings.inputs.verdict_records import AnswerStyle

V2_READER = "arena-hard v2"
BY_NAME_READER = "arena-hard v0.1 / ProBench"

_STOPS = {V2_READER: (FLOAT,), BY_NAME_READER: (BOOLEAN, FLOAT)}
_COUNTS_BOOLEANS = {V2_READER: (BOOLEAN, BOOLEANS_IN_A_DICT), BY_NAME_READER: (BOOLEANS_IN_A_DICT,)}
_READER = {
    V2_READER: "arena-hard v2's show_result reads a count as `v if isinstance(v, int) else "
    "sum(v.values())`",
    BY_NAME_READER: "construct_style_matrices (arena-hard v0.1 and ProBench) reads a count as "
    "`x if type(x) is int else sum(x.values())`",
}


class Answered(Protocol):
    """A verdict record or a score row: an answer pair with its place and metadata."""

    @property
    def uid(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def baseline(self) -> str: ...
    @property
    def place(self) -> RowPlace | None: ...
    @property
    def model_style(self) -> AnswerStyle | None: ...
    @property
    def baseline_style(self) -> AnswerStyle | None: ...


def require_readable_values(rows: Sequence[Answered], reference: str) -> None:
    """A ``ValueError`` for the first value ``reference`` stops on (module doc)."""
    for row, side, key, kind in _odd_values(rows):
        if kind in _STOPS[reference]:
            where = "" if row.place is None else f"{row.place}: "
            python_type = "bool" if kind == BOOLEAN else "float"
            raise ValueError(
                f"{where}field '{side}.{key}': uid {row.uid!r} ({row.model!r} against "
                f"{row.baseline!r}): {kind}, not an int or a dict of counts; {_READER[reference]}, "
                f"so it stops on this value (AttributeError: '{python_type}' object has no "
                "attribute 'values')"
            )


def boolean_count_notes(rows: Sequence[Answered], reference: str) -> list[str]:
    """One note per side and key where ``reference`` reads booleans as counts (true 1, false 0,
    as here), with how many answers have them and the first."""
    first: dict[tuple[str, str, str], Answered] = {}
    count: Counter[tuple[str, str, str]] = Counter()
    for row, side, key, kind in _odd_values(rows):
        if kind in _COUNTS_BOOLEANS[reference]:
            first.setdefault((side, key, kind), row)
            count[side, key, kind] += 1
    return [
        f"{side}.{key} is {kind} in {count[side, key, kind]} answer(s), first uid {row.uid!r} "
        f"({row.model!r} against {row.baseline!r}): {_READER[reference]}, so true counts 1 "
        "and false 0 without a word; scored so here"
        for (side, key, kind), row in first.items()
    ]


def _odd_values(rows: Sequence[Answered]) -> Iterator[tuple[Answered, str, str, str]]:
    for row in rows:
        for side, style in (
            ("model_metadata", row.model_style),
            ("baseline_metadata", row.baseline_style),
        ):
            if style is not None:
                for key, kind in style.odd_kinds:
                    yield row, side, key, kind
