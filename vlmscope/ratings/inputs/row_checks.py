"""Input rows that cannot be used: one error type, one reason vocabulary, one tally.

Every reader of battle or verdict rows (files, in-memory records, the evaluate module's columns)
checks each row before any rating code sees it. A row that cannot be used is either an error
(:class:`BadRowError`, a ``ValueError``) naming where it is (the file and the 1-based line of a
JSON-lines file, the 0-based index in a JSON array or a list) and the field, or, when the caller
asks to skip bad rows, left out and counted under its reason (:class:`CheckedRows`). Nothing is
dropped silently and nothing is coerced: ``None`` is not a model and ``"12"`` is not a number.

Reasons (``SKIP_REASONS``):

* ``not_json``: the line is not JSON, or not a JSON object.
* ``missing_model``: a model name (``model_a``, ``model_b``, ``model``, ``baseline``) is absent,
  null, not a string, or empty (blank).
* ``self_battle``: both sides are one model (``model_a == model_b``, ``model == baseline``).
* ``bad_winner``: ``winner`` is not ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``.
* ``bad_number``: a style count, token count, ``tstamp`` or weight is not a finite number (NaN,
  infinite, a string, a boolean, null), or a count or weight is negative.
* ``missing_field``: a field the rating needs is absent (or not an object where one is
  expected): a verdict's uid or judgments, ``conv_metadata`` or a style count when style
  control is asked for, a verdict's answer metadata that is not an object (which of its
  keys a scorer needs is the scorer's to say: see :mod:`vlmscope.ratings.inputs.verdict_records`).
* ``bad_games``: a verdict's ``games`` is not a list of two games.
* ``bad_flag``: a flag (``anony``, a category label) is not true or false.
* ``repeated``: the row's id (a battle's ``question_id``, a verdict's uid for its model and
  baseline) was already given by an earlier row: the same vote or verdict would be rated twice,
  and its interval drawn too narrow.

A verdict whose judgment has no label is not a bad row: the scorers count it as unparseable.
"""

from __future__ import annotations

import json
import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from vlmscope.data_files import read_parquet, read_text
from vlmscope.json_lines import json_lines

NOT_JSON = "not_json"
MISSING_MODEL = "missing_model"
SELF_BATTLE = "self_battle"
BAD_WINNER = "bad_winner"
BAD_NUMBER = "bad_number"
MISSING_FIELD = "missing_field"
BAD_GAMES = "bad_games"
BAD_FLAG = "bad_flag"
REPEATED = "repeated"
SKIP_REASONS = (
    NOT_JSON,
    MISSING_MODEL,
    SELF_BATTLE,
    BAD_WINNER,
    BAD_NUMBER,
    MISSING_FIELD,
    BAD_GAMES,
    BAD_FLAG,
    REPEATED,
)

T = TypeVar("T")

TABLE_SUFFIXES = (".csv", ".tsv")
"""Files named as delimited tables: refused with how to write them as rows, not line by line."""


@dataclass(frozen=True)
class RowPlace:
    """Where a row is: ``source`` (a file, or None for rows handed over in memory) and either
    the 1-based ``line`` of a JSON-lines file or the 0-based ``index`` in an array or list."""

    source: str | None
    line: int | None = None
    index: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else f"index {self.index}"
        return where if self.source is None else f"{self.source} {where}"


class BadRowError(ValueError):
    """One row that cannot be used: the reason (one of ``SKIP_REASONS``), the field (None when
    the row as a whole is wrong, e.g. not JSON), what is wrong, and where (once known)."""

    def __init__(
        self, reason: str, field: str | None, detail: str, place: RowPlace | None = None
    ) -> None:
        self.reason = reason
        self.field = field
        self.detail = detail
        self.place = place
        where = "" if place is None else f"{place}: "
        what = "" if field is None else f"field {field!r}: "
        super().__init__(f"{where}{what}{detail} ({reason})")

    def at(self, place: RowPlace) -> BadRowError:
        """The same problem, located."""
        return BadRowError(self.reason, self.field, self.detail, place)


@dataclass(frozen=True)
class CheckedRows(Generic[T]):
    """The usable rows in input order, and how many were skipped for each reason."""

    rows: list[T]
    skipped: dict[str, int] = field(default_factory=dict)
    """Reason -> rows skipped (reasons in ``SKIP_REASONS`` order; empty when none were)."""
    first_skipped: dict[str, str] = field(default_factory=dict)
    """Reason -> the message of its first skipped row (with file and line), to show a user."""


@dataclass(frozen=True)
class _NotJson:
    error: str


RowKey = Callable[[Mapping[str, Any]], "tuple[str, Any, str] | None"]
"""A row's identity, as (the field that names it, a hashable identity, how a message shows it),
or None for a row without one."""

Locate = Callable[[T, RowPlace], T]
"""A usable row given its place, for rows that keep it (a problem found when they are used)."""


def check_rows(
    values: Iterable[tuple[int, Any]],
    place: Callable[[int], RowPlace],
    build: Callable[[Mapping[str, Any]], T],
    *,
    skip_bad_rows: bool = False,
    key: RowKey | None = None,
    locate: Locate[T] | None = None,
) -> CheckedRows[T]:
    """``build`` every ``(position, value)``; a value that is not a JSON object, or whose
    ``build`` raises :class:`BadRowError`, raises that error at ``place(position)`` or, with
    ``skip_bad_rows``, is counted under its reason instead. With ``key``, a usable row whose
    identity an earlier usable row already had is ``repeated`` (the first one stands). With
    ``locate``, each usable row is handed its place (for problems found after reading)."""
    rows: list[T] = []
    skipped: Counter[str] = Counter()
    first: dict[str, str] = {}
    seen: dict[Any, int] = {}
    for position, value in values:
        try:
            if type(value) is not dict and not isinstance(value, Mapping):
                if isinstance(value, _NotJson):
                    raise BadRowError(NOT_JSON, None, f"not JSON: {value.error}")
                raise BadRowError(NOT_JSON, None, f"not a JSON object but {_kind(value)}")
            row = build(value)
            identity = None if key is None else key(value)
            if identity is not None:
                earlier = seen.setdefault(identity[1], position)
                if earlier != position:
                    raise BadRowError(
                        REPEATED,
                        identity[0],
                        f"{identity[2]} repeats the row at {_unsourced(place(earlier))}; "
                        "it would be rated twice",
                    )
            rows.append(row if locate is None else locate(row, place(position)))
        except BadRowError as error:
            located = error.at(place(position))
            if not skip_bad_rows:
                raise located from None
            skipped[error.reason] += 1
            first.setdefault(error.reason, str(located))
    order = {reason: i for i, reason in enumerate(SKIP_REASONS)}
    counts = dict(sorted(skipped.items(), key=lambda item: order.get(item[0], len(order))))
    return CheckedRows(rows, counts, first)


def check_records(
    records: Iterable[Any],
    build: Callable[[Mapping[str, Any]], T],
    *,
    skip_bad_rows: bool = False,
    key: RowKey | None = None,
) -> CheckedRows[T]:
    """:func:`check_rows` over rows in memory; a bad row is named by its index."""
    return check_rows(
        enumerate(records),
        lambda i: RowPlace(None, index=i),
        build,
        skip_bad_rows=skip_bad_rows,
        key=key,
    )


def check_file(
    path: str | Path,
    build: Callable[[Mapping[str, Any]], T],
    *,
    skip_bad_rows: bool = False,
    key: RowKey | None = None,
    locate: Locate[T] | None = None,
) -> CheckedRows[T]:
    """:func:`check_rows` over a JSON-lines file (blank lines ignored), a JSON array or a Parquet
    file (rows named by 0-based index, like a JSON array).

    A JSON array that does not parse as a whole has no rows to skip: that is a ``ValueError``
    naming the file whatever ``skip_bad_rows`` says."""
    source = str(path)
    with open(path, "rb") as handle:
        is_parquet = handle.read(4) == b"PAR1"
    if is_parquet:  # one row per record, as a JSON array would give
        return check_rows(
            enumerate(read_parquet(path).to_pylist()),
            lambda i: RowPlace(source, index=i),
            build,
            skip_bad_rows=skip_bad_rows,
            key=key,
            locate=locate,
        )
    text = read_text(path)
    if text.lstrip().startswith("["):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{source}: not a JSON array: {error}") from None
        return check_rows(
            enumerate(loaded),
            lambda i: RowPlace(source, index=i),
            build,
            skip_bad_rows=skip_bad_rows,
            key=key,
            locate=locate,
        )
    refuse_table(source, text)
    return check_rows(
        _json_lines(text),
        lambda n: RowPlace(source, line=n),
        build,
        skip_bad_rows=skip_bad_rows,
        key=key,
        locate=locate,
    )


def refuse_table(source: str, head: str) -> None:
    """Refuse a file named as a delimited table (`.csv`, `.tsv`) whose text (`head`, its start
    at least) is not JSON lines: it is a table, not a first line that is bad JSON, and the
    error says what is read instead."""
    suffix = Path(source).suffix.lower()
    if suffix in TABLE_SUFFIXES and not head.lstrip().startswith("{"):
        raise ValueError(
            f"{source}: a {suffix} table is not read here; give JSON lines, a JSON array or a "
            "Parquet file (pandas: DataFrame.to_json(orient='records', lines=True))"
        )


def _json_lines(text: str) -> Iterator[tuple[int, Any]]:
    """(1-based line number, parsed value or :class:`_NotJson`) per non-blank line
    (:func:`vlmscope.json_lines.json_lines`)."""
    for number, line in json_lines(text):
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as error:
            yield number, _NotJson(str(error))


def _unsourced(place: RowPlace) -> RowPlace:
    return RowPlace(None, place.line, place.index)


def _kind(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def model_name(row: Mapping[str, Any], name: str, value: Any = None) -> str:
    """The model named by ``row[name]`` (or ``value`` when given): a non-blank string."""
    if value is None:
        value = row.get(name)
    if type(value) is str and value and not value.isspace():
        return value
    if value is None:
        raise BadRowError(MISSING_MODEL, name, "null" if name in row else "absent")
    if not isinstance(value, str):
        raise BadRowError(MISSING_MODEL, name, f"{value!r} is not a string")
    if not value.strip():
        raise BadRowError(MISSING_MODEL, name, "empty")
    return value


def number(value: Any, name: str, *, count: bool = True) -> float:
    """A finite number (int or float, numpy ones included; a bool is not a number); with
    ``count`` also not negative. Raises :class:`BadRowError` (``bad_number``) naming ``name``."""
    kind = type(value)
    if kind is int:
        if count and value < 0:
            raise BadRowError(BAD_NUMBER, name, f"{value!r} is negative")
        return float(value)
    if kind is not float and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        shown = "null" if value is None else f"{value!r} is not a number"
        raise BadRowError(BAD_NUMBER, name, shown)
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise BadRowError(BAD_NUMBER, name, f"{value!r} is not finite")
    if count and result < 0:
        raise BadRowError(BAD_NUMBER, name, f"{value!r} is negative")
    return result


def count_total(value: Any, name: str) -> float:
    """A style or token count: a number, or a mapping of sub-counts summed (every reference
    sums ``{"h1": 0, "h2": 3, ...}``); each must be a finite, non-negative number."""
    kind = type(value)
    if kind is int and value >= 0:  # the common cases first, without a call per value
        return float(value)
    if kind is dict or isinstance(value, Mapping):
        items = value.values()
        for item in items:
            if type(item) is not int or item < 0:
                return float(sum(number(v, f"{name}.{k}") for k, v in value.items()))
        return float(sum(items))
    return number(value, name)
