"""`python -m vlmscope.cache_salvage SRC DST`: keep what can still be read of a damaged cache.

Copies every readable row of the cache file SRC into a new cache file DST and prints how many
rows were kept and how many were lost, by reason. SRC is never changed. The usual way, as the
`CacheDamaged` error says: move the damaged file aside, then salvage it back into its place;
the next run then asks again only what was lost.

`add_subparser` provides the same as `vlmscope cache salvage SRC DST`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import struct
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlmscope.cache import TABLE, ResponseCache, UnreadableRow, decode_response, schema_problem

DESCRIPTION = __doc__.split("\n\n")[1] if __doc__ else ""
DAMAGED_PAGES = "in a damaged part of the file"
_PROBE_BATCH = 256
_MAX_MISSES = 1_000_000  # rowids probed past the last readable row when the end is unknown (~4 s)
_SHOWN_KEYS = 20


@dataclass
class SalvageReport:
    """What `salvage` copied into the fresh cache, and what it lost, by reason."""

    src: Path
    dst: Path
    kept: int = 0
    lost: Counter[str] = field(default_factory=Counter)
    lost_keys: dict[str, str] = field(default_factory=dict)
    """Key -> what is wrong, for the lost rows whose key could still be read."""
    notes: list[str] = field(default_factory=list)
    """Losses that cannot be counted: a file SQLite cannot open, a table whose end is cut off."""

    def lines(self) -> list[str]:
        out = [f"salvaged {self.src} into {self.dst}", f"kept {self.kept} rows"]
        out += [f"lost {n} rows: {reason}" for reason, n in sorted(self.lost.items())]
        shown = list(self.lost_keys.items())[:_SHOWN_KEYS]
        out += [f"    {key}: {why}" for key, why in shown]
        if len(self.lost_keys) > len(shown):
            out.append(f"    ... and {len(self.lost_keys) - len(shown)} more keys")
        return out + self.notes


def salvage(src: str | Path, dst: str | Path) -> SalvageReport:
    """Copy every readable row of the cache file `src` into a new cache file `dst`.

    `src` is read from a private copy, so it is never changed, and `dst` is written under a
    temporary name and renamed into place when complete. Rows on damaged pages are found by
    reading one rowid at a time past the damage (rowids are dense: rows are only ever added or
    updated in place); a value that is not a response is left out, by key.
    """
    src, dst = Path(src), Path(dst)
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such cache file to salvage")
    if dst.exists():
        raise FileExistsError(
            f"{dst} exists; salvage writes a new cache: name a path that does not"
        )
    dst.parent.mkdir(parents=True, exist_ok=True)
    report = SalvageReport(src, dst)
    with tempfile.TemporaryDirectory(prefix=".salvage-", dir=dst.parent) as tmp:
        fresh = Path(tmp) / "salvaged.sqlite"
        conn = _open_copy(src, Path(tmp) / "damaged.sqlite")
        target = ResponseCache(fresh)
        try:
            _copy_readable(conn, target, report)
        finally:
            conn.close()
            target.close()  # the last connection: its WAL is folded into the file and removed
        fresh.rename(dst)
    return report


def _copy_readable(conn: sqlite3.Connection, target: ResponseCache, report: SalvageReport) -> None:
    batch: list[tuple[str, str, int, str, float]] = []
    for row in _salvaged_rows(conn, report):
        batch.append(row)
        if len(batch) == 500:
            target.copy_rows(batch)
            batch = []
    target.copy_rows(batch)


def _open_copy(src: Path, copy: Path) -> sqlite3.Connection:
    """A copy of `src` (and its WAL) that SQLite reads up to where the file really ends.

    A cut-off file still claims its old length in its header, and SQLite then refuses every
    page; a header count that does not match the change counter is ignored in favour of the
    file's size, so the copy's count is invalidated.
    """
    shutil.copyfile(src, copy)
    wal = Path(f"{src}-wal")
    if wal.exists():
        shutil.copyfile(wal, f"{copy}-wal")
    with copy.open("r+b") as f:
        header = f.read(100)
        if len(header) == 100 and header.startswith(b"SQLite format 3\x00"):
            (changes,) = struct.unpack(">I", header[24:28])
            f.seek(92)
            f.write(struct.pack(">I", (changes + 1) & 0xFFFFFFFF))
    return sqlite3.connect(copy, isolation_level=None)


def _salvaged_rows(
    conn: sqlite3.Connection, report: SalvageReport
) -> Iterator[tuple[str, str, int, str, float]]:
    """Every readable row, ready to insert; counts what is lost into `report`."""
    try:
        problem = schema_problem(conn, empty_ok=False)
    except sqlite3.DatabaseError as err:
        problem = f"SQLite cannot read it ({err})"
    if problem is not None:
        report.notes.append(f"no row could be read: {problem}")
        return
    for key, backend, text, created in _scan(conn, report):
        try:
            response = decode_response(text)
        except UnreadableRow as err:
            report.lost[err.reason] += 1
            report.lost_keys[str(key)] = str(err)
            continue
        record = json.dumps(response.to_json(), ensure_ascii=False)
        when = created if isinstance(created, float) else time.time()
        report.kept += 1
        yield str(key), str(backend), int(response.ok), record, when


def _scan(conn: sqlite3.Connection, report: SalvageReport) -> Iterator[tuple[Any, ...]]:
    """(key, backend, response, created) of every row SQLite can still read, in rowid order.

    Counts the rowids that could not be read into `report`. When the table's end cannot be
    read either, probing stops `_MAX_MISSES` rowids past the last readable row, and the rows
    after it are noted as lost in unknown number.
    """
    end = _last_rowid(conn)
    rowid = last_read = damaged = pending = 0
    while rowid < end if end is not None else rowid - last_read < _MAX_MISSES:
        stop = rowid + _PROBE_BATCH if end is None else min(rowid + _PROBE_BATCH, end)
        rows, bad = _probe(conn, rowid, stop)
        if rows:
            last_read = rows[-1][0]
            damaged += pending + sum(1 for r in bad if r < last_read)
            pending = sum(1 for r in bad if r > last_read)
        else:
            pending += len(bad)
        yield from (row[1:] for row in rows)
        rowid = stop
    if end is None:
        report.notes.append(
            f"the end of the table could not be read: rows after rowid {last_read} are lost,"
            " how many is not known"
        )
    else:
        damaged += pending
    if damaged:
        report.lost[DAMAGED_PAGES] += damaged


def _probe(conn: sqlite3.Connection, lo: int, hi: int) -> tuple[list[tuple[Any, ...]], list[int]]:
    """The rows with `lo < rowid <= hi`, and the rowids in that range SQLite could not read."""
    query = (
        f"SELECT rowid, key, backend, response, created FROM {TABLE}"
        " WHERE rowid > ? AND rowid <= ? ORDER BY rowid"
    )
    try:
        return conn.execute(query, (lo, hi)).fetchall(), []
    except sqlite3.DatabaseError:
        pass
    one = f"SELECT rowid, key, backend, response, created FROM {TABLE} WHERE rowid = ?"
    rows: list[tuple[Any, ...]] = []
    bad: list[int] = []
    for rowid in range(lo + 1, hi + 1):  # a point lookup reads no page past its row
        try:
            rows += conn.execute(one, (rowid,)).fetchall()
        except sqlite3.DatabaseError:
            bad.append(rowid)
    return rows, bad


def _last_rowid(conn: sqlite3.Connection) -> int | None:
    """The largest rowid, or None when the table's last page cannot be read."""
    try:
        (last,) = conn.execute(f"SELECT max(rowid) FROM {TABLE}").fetchone()
    except sqlite3.DatabaseError:
        return None
    return int(last or 0)


# --- command line ---------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("src", type=Path, help="the damaged cache file (read only)")
    parser.add_argument("dst", type=Path, help="the new cache file to write (must not exist)")


def add_subparser(subparsers: Any) -> None:
    """`vlmscope cache salvage SRC DST`."""
    cache = subparsers.add_parser(
        "cache",
        help="repair the response cache",
        description="Repair a run's response cache (OUTPUT_DIR/cache.sqlite): `salvage` copies "
        "every readable answer and judgment of a damaged cache into a new one.",
    )
    actions = cache.add_subparsers(dest="cache_command", required=True, metavar="ACTION")
    parser = actions.add_parser(
        "salvage", help="copy the readable rows of a damaged cache", description=DESCRIPTION
    )
    add_arguments(parser)
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        report = salvage(args.src, args.dst)
    except (FileNotFoundError, FileExistsError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print("\n".join(report.lines()))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vlmscope.cache_salvage", description=DESCRIPTION
    )
    add_arguments(parser)
    return handle(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
