"""Streamed, columnar reading of a large clean-battle JSON-lines file into the full board's
:class:`~vlmscope.ratings.inputs.battles.Battles`.

The ``vlmscope ratings battles`` command reads through it whenever it needs no record itself (no
category boards, no stored details); a 3,000,000-battle file then takes about 2 GB.

The same result as the per-row path (:func:`~vlmscope.ratings.inputs.battles.read_battle_records`,
then the board's selection: ``tstamp`` order, anonymous battles only, records without
``anony`` / ``tstamp`` anonymous in file order, then ``Battles.from_rows``), without a Python
object per record: the file is read in blocks of lines, each parsed by ``pyarrow.json`` with an
explicit schema holding only the fields the fit needs (``model_a``, ``model_b``, ``winner``,
``anony``, ``tstamp``, the FastChat style counts). A block whose every row passes vectorised
checks is used as is; a block that does not parse under that schema, or where any row could be
bad (a null, a blank name, a self battle, an unknown winner, a non-finite number, a negative
count, a blank line), is read again by the per-row checks of
:mod:`vlmscope.ratings.inputs.row_checks`, so a bad row is the same error (file, line, field) or the
same counted skip as on the per-row path. A JSON array file is read as JSON lines once its
records are parsed (`_json_array`). Without pyarrow the per-row path runs;
so it does when two rows give one ``question_id`` (found on the columns), to name the repeat.

One difference remains: sub-count objects (``header_count_a: {"h1": .., ...}``) are read with
FastChat's keys (``h1``-``h6``, ``ordered`` / ``unordered``, ``**`` / ``__``); another key in
such an object is ignored here where the per-row path would add it.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vlmscope.data_files import parquet_batches, parquet_file
from vlmscope.ratings.inputs.arrow_arrays import index_array, integers
from vlmscope.ratings.inputs.battle_columns import (
    BattleColumns,
    checked_columns,
    json_array_columns,
    json_block_columns,
    json_block_per_row,
    json_schema,
    per_row_columns,
)
from vlmscope.ratings.inputs.battles import Battles, battle_row
from vlmscope.ratings.inputs.row_checks import SKIP_REASONS, RowPlace, refuse_table

_BLOCK_BYTES = 32 << 20
_PARQUET_ROWS = 1 << 18
_PARQUET_MAGIC = b"PAR1"


@dataclass(frozen=True)
class StreamedBattles:
    """The full board's battles and, with ``skip_bad_rows``, what was skipped."""

    battles: Battles
    skipped: dict[str, int] = field(default_factory=dict)
    first_skipped: dict[str, str] = field(default_factory=dict)
    rows: int = 0
    """Usable rows read, before the board's selection (anonymous battles only)."""


def _parquet_parts(
    path: Path, style: bool, skip_bad_rows: bool
) -> tuple[list[BattleColumns], Counter[str], dict[str, str]]:
    """A Parquet file in batches of rows, each checked like a JSON block (0-based row index in
    errors). Only the columns the fit reads are read."""
    import pyarrow as pa

    source = str(path)
    handle = parquet_file(path)
    present = set(handle.schema_arrow.names)
    wanted = [
        c
        for c in (
            "question_id",
            "model_a",
            "model_b",
            "winner",
            "anony",
            "tstamp",
            "conv_metadata",
            "category_tag",
            "dedup_tag",
        )
        if c in present
    ]
    parts: list[BattleColumns] = []
    skipped: Counter[str] = Counter()
    first: dict[str, str] = {}
    row = 0
    for batch in parquet_batches(path, columns=wanted, batch_size=_PARQUET_ROWS):
        table = pa.Table.from_batches([batch])
        fast = checked_columns(table, style)
        if fast is None:
            records = enumerate(table.to_pylist(), start=row)
            fast, counts, firsts = per_row_columns(
                records, lambda i: RowPlace(source, index=i), style, skip_bad_rows
            )
            skipped.update(counts)
            for reason, message in firsts.items():
                first.setdefault(reason, message)
        parts.append(fast)
        row += batch.num_rows
    return parts, skipped, first


def _blocks(path: Path, block_bytes: int) -> Any:
    """(bytes ending at a newline or the end of the file, 1-based first line number, lines).

    One buffer is reused: each block is a view into it (valid until the next block is read),
    so a 3 GB file is not copied a second time in Python."""
    line = 1
    buffer = bytearray(block_bytes)
    held = 0  # bytes of an unfinished last line kept at the front of the buffer
    with open(path, "rb") as handle:
        while True:
            if held == len(buffer):  # one line longer than a block: a bigger buffer (the
                buffer = buffer + bytes(len(buffer))  # last view still holds the old one)
            got = handle.readinto(memoryview(buffer)[held:])
            end = held + (got or 0)
            if not got:
                if held:
                    yield memoryview(buffer)[:held], line, buffer.count(b"\n", 0, held) + 1
                return
            cut = buffer.rfind(b"\n", 0, end)
            if cut < 0:
                held = end
                continue
            lines = buffer.count(b"\n", 0, cut + 1)
            yield memoryview(buffer)[: cut + 1], line, lines
            line += lines
            buffer[: end - cut - 1] = buffer[cut + 1 : end]
            held = end - cut - 1


def _parsed_blocks(
    path: Path, block_bytes: int, schema: Any, style: bool
) -> Iterator[tuple[bytes, int, BattleColumns | None]]:
    """`_blocks`' blocks (copied) and first line numbers, with each block's columns (None: the per-row path must read it), in file
    order. Blocks are parsed on a pool of one thread per usable core, each parse on its own
    thread: pyarrow sizes its own pool from OMP_NUM_THREADS, so a run held to one BLAS thread
    would otherwise parse a multi-GB file on one core."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = max(1, cores or 1)
    in_flight: deque[tuple[bytes, int, Future[BattleColumns | None]]] = deque()
    with ThreadPoolExecutor(workers, thread_name_prefix="vlmscope-battles") as pool:
        for data, line, n_lines in _blocks(path, block_bytes):
            block = bytes(data)  # `_blocks` reuses its buffer for the next block
            parse = pool.submit(json_block_columns, block, n_lines, schema, style)
            in_flight.append((block, line, parse))
            if len(in_flight) > workers:
                block, line, parse = in_flight.popleft()
                yield block, line, parse.result()
        while in_flight:
            block, line, parse = in_flight.popleft()
            yield block, line, parse.result()


def read_board_battles(
    path: str | Path,
    *,
    style: bool = False,
    skip_bad_rows: bool = False,
    block_bytes: int = _BLOCK_BYTES,
) -> StreamedBattles:
    """The full board's battles of a clean-battle file: the rows :func:`read_battle_records`
    keeps (a bad row raises :class:`~vlmscope.ratings.inputs.row_checks.BadRowError` naming file, line
    and field, or with ``skip_bad_rows`` is counted), selected like ``select_board_battles``
    (stable ``tstamp`` order, anonymous only) and built like ``Battles.from_rows`` (style counts
    kept when ``style`` and every row has them)."""
    path = Path(path)
    source = str(path)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return _per_row(path, style, skip_bad_rows)
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head.startswith(_PARQUET_MAGIC):
        parts, skipped, first = _parquet_parts(path, style, skip_bad_rows)
        if _repeats(parts):  # the per-row path names (or skips) each repeat
            return _per_row(path, style, skip_bad_rows)
        return StreamedBattles(
            _select(parts, style), _in_reason_order(skipped), first, _row_count(parts)
        )
    if head.lstrip().startswith(b"["):
        return _json_array(path, style, skip_bad_rows)
    refuse_table(source, head.decode("utf-8", errors="replace"))
    schema = json_schema()
    parts = []
    skipped = Counter()
    first = {}
    for data, line, fast in _parsed_blocks(path, block_bytes, schema, style):
        if fast is None:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(f"{source}: not UTF-8 text ({error})") from None
            fast, counts, firsts = json_block_per_row(text, line, source, style, skip_bad_rows)
            skipped.update(counts)
            for reason, message in firsts.items():
                first.setdefault(reason, message)
        parts.append(fast)
    if _repeats(parts):  # the per-row path names (or skips) each repeat
        return _per_row(path, style, skip_bad_rows)
    return StreamedBattles(
        _select(parts, style), _in_reason_order(skipped), first, _row_count(parts)
    )


def _row_count(parts: list[BattleColumns]) -> int:
    return sum(len(p.outcome) for p in parts)


def _repeats(parts: list[BattleColumns]) -> bool:
    """Whether two rows anywhere in the file give one ``question_id`` (decided on the columns;
    rows without one are not compared)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [
        p.ids if isinstance(p.ids, pa.Array) else pa.array(p.ids, type=pa.string())
        for p in parts
        if p.ids is not None
    ]
    if not chunks:
        return False
    ids = pa.chunked_array(chunks, type=pa.string())
    present = len(ids) - ids.null_count
    return bool(pc.count_distinct(ids).as_py() != present)


def _json_array(path: Path, style: bool, skip_bad_rows: bool) -> StreamedBattles:
    """A JSON array (FastChat's clean-battle files), read by the same arrow JSON parser and
    schema as JSON lines: the array is parsed as the one field of one object (the records a
    list of the schema's rows, other fields ignored), and the rows' columns get the same
    vectorised checks. Anything those cannot take (a bad row, a record that is not an object,
    NaN, which the parser refuses, a repeated ``question_id``) reads the file again on the
    per-row path, whose errors name the index in the array."""
    fast = json_array_columns(path.read_bytes(), json_schema(), style)
    if fast is not None and len(fast.outcome) and not _repeats([fast]):
        return StreamedBattles(_select([fast], style), {}, {}, _row_count([fast]))
    return _per_row(path, style, skip_bad_rows)


def _in_reason_order(skipped: Counter[str]) -> dict[str, int]:
    order = {reason: i for i, reason in enumerate(SKIP_REASONS)}
    return dict(sorted(skipped.items(), key=lambda item: order.get(item[0], len(order))))


def _per_row(path: Path, style: bool, skip_bad_rows: bool) -> StreamedBattles:
    from vlmscope.ratings.inputs.battles import read_battle_records
    from vlmscope.ratings.inputs.board_selection import select_board_battles

    checked = read_battle_records(path, style=style, skip_bad_rows=skip_bad_rows)
    rows = [battle_row(record, style=style) for record in select_board_battles(checked.rows)]
    return StreamedBattles(
        Battles.from_rows(rows, style=style),
        checked.skipped,
        checked.first_skipped,
        len(checked.rows),
    )


def _strings(values: Any) -> Any:
    import pyarrow as pa

    return values if isinstance(values, pa.Array) else pa.array(values, type=pa.string())


def _select(parts: list[BattleColumns], style: bool) -> Battles:
    """Board selection over all blocks, then ids by first appearance (pandas ``factorize``)."""
    import pyarrow as pa

    a = pa.chunked_array([_strings(p.model_a) for p in parts], type=pa.string())
    b = pa.chunked_array([_strings(p.model_b) for p in parts], type=pa.string())
    outcome = np.concatenate([p.outcome for p in parts]) if parts else np.zeros(0)
    anony = np.concatenate([p.anony for p in parts]) if parts else np.zeros(0, bool)
    tstamp = np.concatenate([p.tstamp for p in parts]) if parts else np.zeros(0)
    absent = np.isnan(tstamp)
    tstamp[absent] = np.flatnonzero(absent)  # a record without tstamp: its index
    keep = np.argsort(tstamp, kind="stable")
    keep = keep[anony[keep]]
    n = len(keep)
    positions = index_array(keep)
    names = pa.chunked_array(a.take(positions).chunks + b.take(positions).chunks)
    encoded = names.combine_chunks().dictionary_encode()
    codes = integers(encoded.indices).astype(np.intp)
    models = tuple(encoded.dictionary.to_pylist())
    use_style = style and n > 0 and all(p.style is not None for p in parts)
    counts = (
        np.concatenate([p.style for p in parts if p.style is not None])[keep] if use_style else None
    )
    return Battles(
        models=models,
        model_a=codes[:n],
        model_b=codes[n:],
        outcome=outcome[keep],
        weights=np.ones(n),
        style_a=None if counts is None else np.ascontiguousarray(counts[:, :4]),
        style_b=None if counts is None else np.ascontiguousarray(counts[:, 4:]),
    )
