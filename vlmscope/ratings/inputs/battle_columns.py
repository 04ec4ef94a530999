"""One block of battle rows as checked columns: the part of the streamed reader
(:mod:`vlmscope.ratings.inputs.battle_stream`) that decides, per block, between the vectorised checks
and the per-row checks of :mod:`vlmscope.ratings.inputs.row_checks`.

A block is a run of JSON lines or a Parquet batch. :func:`checked_columns` takes its columns as
they are when every row passes checks made column by column; otherwise the block is read again
row by row (:func:`per_row_columns`), so a bad row is the same error, or the same counted skip,
as on the per-row path.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlmscope.ratings.inputs.arrow_arrays import bools, integers, numbers
from vlmscope.ratings.inputs.battles import (
    STYLE_ELEMENTS_A,
    STYLE_ELEMENTS_B,
    WINNER_OUTCOMES,
    battle_key,
    battle_row,
)
from vlmscope.ratings.inputs.labels import READ_FLAGS
from vlmscope.ratings.inputs.row_checks import RowPlace, check_rows

_SUB_KEYS = {
    "header_count": ("h1", "h2", "h3", "h4", "h5", "h6"),
    "list_count": ("ordered", "unordered"),
    "bold_count": ("**", "__"),
}


@dataclass
class BattleColumns:
    """Checked rows of one block: names, outcome, anony, tstamp (NaN = absent), style, and
    each row's ``question_id`` as text (null where a row has none) for the repeat check."""

    model_a: Any  # pyarrow string array or list of str
    model_b: Any
    outcome: np.ndarray
    anony: np.ndarray
    tstamp: np.ndarray
    style: np.ndarray | None  # (n, 8): a side then b side
    ids: Any = None  # pyarrow string array or list of str | None; None: no row has one


def _label_types() -> list[tuple[str, Any]]:
    """The labels the boards read, typed as a row must give them (null allowed): a block whose
    labels do not parse under these types is read again row by row, which names the bad one."""
    import pyarrow as pa

    tags = pa.struct([(tag, pa.struct([(flag, pa.bool_())])) for tag, flag in READ_FLAGS])
    return [("category_tag", tags), ("dedup_tag", pa.struct([("sampled", pa.bool_())]))]


def json_schema() -> Any:
    """Only the fields the fit reads (and the labels a row must give well-formed), sub-count
    objects with FastChat's keys (`_SUB_KEYS`)."""
    import pyarrow as pa

    def element(name: str) -> tuple[str, Any]:
        for prefix, keys in _SUB_KEYS.items():
            if name.startswith(prefix):
                return name, pa.struct([(k, pa.int64()) for k in keys])
        return name, pa.int64()

    meta = pa.struct([element(name) for name in STYLE_ELEMENTS_A + STYLE_ELEMENTS_B])
    return pa.schema(
        [
            ("question_id", pa.string()),
            ("model_a", pa.string()),
            ("model_b", pa.string()),
            ("winner", pa.string()),
            ("anony", pa.bool_()),
            ("tstamp", pa.float64()),
            ("conv_metadata", meta),
            *_label_types(),
        ]
    )


def json_block_columns(
    data: bytes | memoryview, n_lines: int, schema: Any, style: bool
) -> BattleColumns | None:
    """The block's columns when pyarrow parses it and every row passes; else None. Parsed on
    the calling thread (blocks are parsed side by side by the caller)."""
    import pyarrow as pa
    import pyarrow.json as pj

    try:
        table = pj.read_json(
            pa.BufferReader(pa.py_buffer(data)),
            read_options=pj.ReadOptions(block_size=4 << 20, use_threads=False),
            parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows != n_lines:  # blank lines: let the per-row path number them
        return None
    if table.column("tstamp").null_count:  # absent and null read alike here
        return None
    return checked_columns(table, style)


def json_array_columns(data: bytes, schema: Any, style: bool) -> BattleColumns | None:
    """The columns of a JSON array of records (`json_block_columns` for an array): parsed as
    `{"rows": [...]}` with the rows typed by `schema`; None when it does not parse so or a row
    could be bad (nulls of records that are not objects or lack a field are seen as bad)."""
    import pyarrow as pa
    import pyarrow.json as pj

    wrapped = b'{"rows": ' + data + b"}"
    rows_schema = pa.schema([("rows", pa.list_(pa.struct(list(schema))))])
    try:
        table = pj.read_json(
            pa.BufferReader(wrapped),
            read_options=pj.ReadOptions(block_size=len(wrapped) + 1),
            parse_options=pj.ParseOptions(
                explicit_schema=rows_schema,
                unexpected_field_behavior="ignore",
                newlines_in_values=True,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows != 1:
        return None
    records = table.column("rows").combine_chunks().flatten()  # the rows of the one list
    columns = records.flatten()  # one array per field, a null record's fields null
    rows = pa.Table.from_arrays(columns, names=[field.name for field in records.type])
    if rows.column("tstamp").null_count:  # absent and null read alike here
        return None
    return checked_columns(rows, style)


_REQUIRED = frozenset({"model_a", "model_b", "winner", "conv_metadata"})


def checked_columns(table: Any, style: bool) -> BattleColumns | None:
    """The table's columns when every row passes the checks of :func:`battle_row` (decided
    column by column); None when any row could be bad, or a column has a type the per-row
    checks would judge value by value. A missing ``anony`` column means anonymous, a missing
    ``tstamp`` column file order (as for records without them).

    Each step below reads one field for every row at once and raises :class:`_ReadRowByRow`
    when some row could fail :func:`battle_row`; that row is then found, and named or skipped,
    by the per-row path."""
    if not _REQUIRED.issubset(table.column_names):
        return None
    try:
        a, b = _model_names(table)
        n = len(a)
        return BattleColumns(
            a,
            b,
            outcome=_outcomes(table.column("winner").combine_chunks(), n),
            anony=_anony(table, n),
            tstamp=_times(table, n),
            style=_style_counts(table.column("conv_metadata").combine_chunks(), n),
            ids=_checked_labels_and_ids(table),
        )
    except _ReadRowByRow:
        return None


class _ReadRowByRow(Exception):
    """A column some row of which could fail the per-row checks (or of a type they would judge
    value by value): the block is read again row by row."""


def _model_names(table: Any) -> tuple[Any, Any]:
    """``model_a`` and ``model_b`` as string arrays: no null, blank (empty or only whitespace)
    or self-battle row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sides = []
    for name in ("model_a", "model_b"):
        column = table.column(name).combine_chunks()
        if not _is_text(column.type) or column.null_count:
            raise _ReadRowByRow
        column = column.cast(pa.string())
        if (integers(pc.utf8_length(column)) == 0).any():
            raise _ReadRowByRow
        if bools(pc.utf8_is_space(column)).any():
            raise _ReadRowByRow
        sides.append(column)
    a, b = sides
    if bools(pc.equal(a, b)).any():
        raise _ReadRowByRow
    return a, b


def _outcomes(winner: Any, n: int) -> np.ndarray:
    """Each row's outcome (`WINNER_OUTCOMES`), decoded once per distinct ``winner`` string."""
    if not _is_text(winner.type) or winner.null_count:
        raise _ReadRowByRow
    encoded = winner.dictionary_encode()
    lookup = np.array(
        [WINNER_OUTCOMES.get(name, np.nan) for name in encoded.dictionary.to_pylist()],
        dtype=np.float64,
    )
    outcome = lookup[integers(encoded.indices)] if n else np.zeros(0)
    if np.isnan(outcome).any():  # a winner string the fit does not know
        raise _ReadRowByRow
    return outcome


def _anony(table: Any, n: int) -> np.ndarray:
    """``anony`` as booleans; every row anonymous when the column is absent."""
    import pyarrow as pa

    if "anony" not in table.column_names:
        return np.ones(n, dtype=bool)
    column = table.column("anony").combine_chunks()
    if not pa.types.is_boolean(column.type) or column.null_count:
        raise _ReadRowByRow
    return bools(column)


def _times(table: Any, n: int) -> np.ndarray:
    """``tstamp`` as finite floats; all NaN (file order) when the column is absent."""
    if "tstamp" not in table.column_names:
        return np.full(n, np.nan)
    column = table.column("tstamp").combine_chunks()
    if not _is_number(column.type) or column.null_count:
        raise _ReadRowByRow
    times = numbers(column)
    if not np.isfinite(times).all():
        raise _ReadRowByRow
    return times


def _style_counts(meta: Any, n: int) -> np.ndarray:
    """The (n, 8) style counts from ``conv_metadata``, a side then b side; an element with
    sub-counts (FastChat's header, list and bold objects) counts their sum."""
    import pyarrow as pa

    if not pa.types.is_struct(meta.type) or meta.null_count:
        raise _ReadRowByRow
    columns = []
    for element in STYLE_ELEMENTS_A + STYLE_ELEMENTS_B:
        if meta.type.get_field_index(element) < 0:
            raise _ReadRowByRow
        value = meta.field(element)
        parts = [value.field(k) for k in value.type.names] if value.type.num_fields else [value]
        total = np.zeros(n)
        for part in parts:
            if not _is_number(part.type) or part.null_count:
                raise _ReadRowByRow
            counts = numbers(part)
            if not (counts >= 0).all() or not np.isfinite(counts).all():
                raise _ReadRowByRow
            total += counts
        columns.append(total)
    return np.column_stack(columns)


def _checked_labels_and_ids(table: Any) -> Any:
    """Each row's ``question_id`` as text (None when the column is absent), once the label
    columns the boards read are known to be typed as `_label_types` wants them."""
    import pyarrow as pa

    names = set(table.column_names)
    for name, expected in _label_types():
        if name in names and not _labels_typed(table.column(name).type, expected):
            raise _ReadRowByRow
    if "question_id" not in names:
        return None
    ids = table.column("question_id").combine_chunks()
    if not (pa.types.is_string(ids.type) or pa.types.is_integer(ids.type)):
        raise _ReadRowByRow
    return ids.cast(pa.string())


def _labels_typed(kind: Any, expected: Any) -> bool:
    """Whether a label column holds, where it holds them, the flags the boards read as
    booleans (a Parquet column may hold more tags or flags; those are not read)."""
    import pyarrow as pa

    if pa.types.is_null(kind):
        return True
    if not pa.types.is_struct(expected):
        return bool(pa.types.is_boolean(kind))
    if not pa.types.is_struct(kind):
        return False
    for field in expected:
        index = kind.get_field_index(field.name)
        if index >= 0 and not _labels_typed(kind.field(index).type, field.type):
            return False
    return True


def _is_number(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind))


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def json_block_per_row(
    text: str, first_line: int, source: str, style: bool, skip_bad_rows: bool
) -> tuple[BattleColumns, Counter[str], dict[str, str]]:
    """The per-row checks on one block (line numbers continue the file's)."""

    def values() -> Any:
        import json

        for offset, line in enumerate(text.split("\n")):
            if not line.strip():
                continue
            try:
                yield first_line + offset, json.loads(line)
            except json.JSONDecodeError as error:
                from vlmscope.ratings.inputs.row_checks import _NotJson

                yield first_line + offset, _NotJson(str(error))

    return per_row_columns(values(), lambda n: RowPlace(source, line=n), style, skip_bad_rows)


def per_row_columns(
    values: Any, place: Any, style: bool, skip_bad_rows: bool
) -> tuple[BattleColumns, Counter[str], dict[str, str]]:
    """:func:`battle_row` on every ``(position, record)``; ``place(position)`` names a bad one."""

    def build(record: Mapping[str, Any]) -> tuple[Any, bool, float, str | None]:
        row = battle_row(record, style=style)
        tstamp = record.get("tstamp")
        key = battle_key(record)
        return (
            row,
            bool(record.get("anony", True)),
            math.nan if tstamp is None else float(tstamp),
            None if key is None else str(key[1]),
        )

    checked = check_rows(values, place, build, skip_bad_rows=skip_bad_rows, key=battle_key)
    rows = checked.rows
    has_style = all(r.style_a is not None for r, _, _, _ in rows)
    style_counts = (
        np.array([r.style_a + r.style_b for r, _, _, _ in rows], dtype=np.float64).reshape(-1, 8)
        if has_style
        else None
    )
    columns = BattleColumns(
        [r.model_a for r, _, _, _ in rows],
        [r.model_b for r, _, _, _ in rows],
        np.array([r.outcome for r, _, _, _ in rows], dtype=np.float64),
        np.array([anony for _, anony, _, _ in rows], dtype=bool),
        np.array([t for _, _, t, _ in rows], dtype=np.float64),
        style_counts,
        [key for _, _, _, key in rows],
    )
    return columns, Counter(checked.skipped), checked.first_skipped
