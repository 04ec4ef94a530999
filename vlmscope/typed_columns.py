"""JSON-shaped values as typed Arrow columns: numbers stay numbers, objects become structs.

A result summary holds nested values whose shape differs by track (MEGA-Bench's keyword table,
ProBench's per-track fits, SimpleVQA's intervals) and grows as tracks add fields. Stored as JSON
text, every reader of `load_dataset(folder, "summary")` had to decode each number; stored typed,
`summary["scores"]["F"]` is a float. The conversion is generic, so a field a track adds is typed
without a change here:

- an object becomes a struct, its keys the fields in their order; an empty object has no Arrow
  struct that Parquet can hold, so it is stored as null (a reader takes null for `{}`);
- a list whose items Arrow can type as one type (numbers, texts, objects with compatible
  fields: missing fields read back as null) becomes a list; one whose items cannot share a
  type (`[1, "a"]`) is stored as its JSON text, the one case a reader sees a string;
- anything else JSON cannot hold (a tuple, a numpy number, a path) is first made JSON (`str` for
  what has no JSON form), as the text columns were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa


def typed(value: Any) -> Any:
    """`value` as a Python value Arrow types without loss of kind (see the module doc)."""
    return _typed(_json_ready(value))


def _json_ready(value: Any) -> Any:
    """`value` made of JSON's types only, as `json.dumps(..., default=str)` would write it."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str, allow_nan=True))


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _typed(v) for k, v in value.items()} or None
    if isinstance(value, list):
        items = [_typed(v) for v in value]
        return items if _one_type(items) else json.dumps(value, ensure_ascii=False)
    return value


def _one_type(items: Sequence[Any]) -> bool:
    """Whether Arrow types every item alike (empty objects are nulls by now, so Parquet can
    store whatever type it finds)."""
    try:
        pa.array(items)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return False
    return True


def typed_table(rows: Sequence[Mapping[str, Any]], fixed: Mapping[str, pa.DataType]) -> pa.Table:
    """`rows` as an Arrow table: the `fixed` columns with their declared types (a null stays a
    typed null), every other column converted with `typed` and its type inferred over the rows."""
    names = list(rows[0]) if rows else list(fixed)
    arrays = []
    for name in names:
        values = [row.get(name) for row in rows]
        if name in fixed:
            arrays.append(pa.array(values, type=fixed[name]))
        else:
            arrays.append(_typed_column(values))
    return pa.Table.from_arrays(arrays, names=names)


def _typed_column(values: Sequence[Any]) -> pa.Array:
    """One column of typed values; rows whose shapes cannot share a type keep their JSON text."""
    converted = [typed(v) for v in values]
    if _one_type(converted):
        return pa.array(converted)
    return pa.array(
        [None if v is None else json.dumps(_json_ready(v)) for v in values], pa.string()
    )
