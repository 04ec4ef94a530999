"""Durable response cache: the reason a killed run loses nothing.

Every finished response (and every judgment, which is just a response from a judge backend) is
committed to an SQLite file before the next batch is sent. SQLite gives us what a resumable run
needs without a server: a transaction is either fully on disk or absent (a SIGKILL mid-write leaves
the previous state), the primary key makes a second write of the same key a no-op (exactly one
stored result per request), and its file locking lets several processes write to one file.

Damage is never hidden and never fatal to the answers that survive it. A file SQLite cannot read
raises `CacheDamaged`, whose message names the file and the commands that move it aside or
salvage it (`python -m vlmscope.cache_salvage`). A single row that cannot be read is treated as
missing, so the runner asks that request again and the new answer replaces the row.
"""

from __future__ import annotations

import json
import logging
import shlex
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from vlmscope.input_errors import InputError
from vlmscope.messages import Response
from vlmscope.owned_files import SQLITE_COMPANIONS, refuse_unowned

logger = logging.getLogger(__name__)

TABLE = "responses"
_COLUMNS = (
    ("key", "TEXT", 1),
    ("backend", "TEXT", 0),
    ("ok", "INTEGER", 0),
    ("response", "TEXT", 0),
    ("created", "REAL", 0),
)
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    ok INTEGER NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""
SALVAGE_COMMAND = "python -m vlmscope.cache_salvage"
_DAMAGE_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
_DAMAGE_WORDS = ("malformed", "not a database")
NOT_JSON = "value is not JSON"
NOT_A_RESPONSE = "value is not a response record"


class CacheFull(OSError):
    """The cache could not commit because its disk is full; the message names the file."""


class CacheDamaged(RuntimeError, InputError):
    """The cache file cannot be used as it is; the message says how to go on.

    Raised instead of SQLite's own error, which names neither the file nor a way out.
    """

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(damaged_message(path, reason))

    def __reduce__(self) -> tuple[type[CacheDamaged], tuple[Path, str]]:
        return (CacheDamaged, (self.path, self.reason))


class UnreadableRow(ValueError):
    """One stored value is not a response; `reason` is one of the salvage report's reasons."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


def damaged_message(path: Path, reason: str, *, now: float | None = None) -> str:
    """The error text: what is wrong with which file, and the exact commands to go on."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    move = _move_aside_command(path, aside)
    salvage_cmd = f"{SALVAGE_COMMAND} {shlex.quote(str(aside))} {shlex.quote(str(path))}"
    return (
        f"the response cache {path} is damaged ({reason}); nothing was changed.\n"
        "To go on, either move it aside (the next run then asks every request again):\n"
        f"    {move}\n"
        "or move it aside and copy every row that can still be read into a fresh cache:\n"
        f"    {move} && {salvage_cmd}"
    )


def _move_aside_command(path: Path, aside: Path) -> str:
    """`mv` of the file and of its WAL files, which belong to it and must travel with it."""
    moves = [f"mv {shlex.quote(str(path))} {shlex.quote(str(aside))}"]
    for suffix in ("-wal", "-shm"):
        extra = Path(f"{path}{suffix}")
        if extra.exists():
            moves.append(f"mv {shlex.quote(str(extra))} {shlex.quote(f'{aside}{suffix}')}")
    return " && ".join(moves)


def decode_response(text: str | bytes) -> Response:
    """A stored value as a `Response`; raises `UnreadableRow` saying what is wrong with it."""
    try:
        record = json.loads(text)
    except (TypeError, ValueError) as err:
        raise UnreadableRow(NOT_JSON, str(err)) from None
    try:
        response = Response.from_json(record)
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise UnreadableRow(NOT_A_RESPONSE, f"{type(err).__name__}: {err}") from None
    if not isinstance(response.text, str):
        raise UnreadableRow(NOT_A_RESPONSE, "its text is not a string")
    return response


def read_responses(
    conn: sqlite3.Connection, keys: Iterable[str]
) -> tuple[dict[str, Response], dict[str, str]]:
    """The stored responses of `keys` that read, and what is wrong with each row that does not
    (the one lookup of the table, for the cache and for read-only readers of it)."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, Response] = {}
    bad: dict[str, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT key, response FROM {TABLE} WHERE key IN ({marks})", chunk
        ).fetchall()
        for key, text in rows:
            try:
                found[key] = decode_response(text)
            except UnreadableRow as err:
                bad[key] = str(err)
    return found, bad


def _readable(text: str | bytes) -> bool:
    try:
        decode_response(text)
    except UnreadableRow:
        return False
    return True


def _is_damage(err: sqlite3.DatabaseError) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _DAMAGE_CODES
    return any(word in str(err) for word in _DAMAGE_WORDS)


class ResponseCache:
    """Maps cache keys (see `vlmscope.messages.cache_key`) to responses, durably.

    `unreadable` maps the key of each row found unreadable to what is wrong with it; such a row
    reads as missing, and the next answer stored for the key replaces it.
    """

    def __init__(self, path: str | Path, *, timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.unreadable: dict[str, str] = {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        refuse_unowned(self.path, SQLITE_COMPANIONS)  # a link or a folder: not ours to open
        self._conn = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None)
        self._conn.create_function("vlmscope_readable", 1, _readable, deterministic=True)
        try:
            with self._reporting_damage():
                self._open(timeout_s)
        except CacheDamaged:
            self._conn.close()
            raise

    def _open(self, timeout_s: float) -> None:
        """Check the file is a vlmscope cache before changing anything in it, then set it up."""
        problems: list[str | None] = []
        _retry_while_locked(lambda: problems.append(schema_problem(self._conn)), timeout_s)
        if problems[-1] is not None:
            raise CacheDamaged(self.path, problems[-1])
        _retry_while_locked(lambda: self._conn.execute("PRAGMA journal_mode=WAL"), timeout_s)
        # FULL: a committed batch survives a power cut, not only a killed process.
        self._conn.execute("PRAGMA synchronous=FULL")
        _retry_while_locked(lambda: self._conn.execute(_SCHEMA), timeout_s)

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """The readable stored responses of `keys`; an unreadable row is left out and noted."""
        with self._reporting_damage():
            found, bad = read_responses(self._conn, keys)
        self._note_unreadable(bad)
        return found

    def get(self, key: str) -> Response | None:
        return self.get_many([key]).get(key)

    def put_many(self, entries: Mapping[str, Response], *, backend: str) -> None:
        """Store a batch in one transaction.

        A key holds one response. A successful response is final; a failed one is kept (so the
        failure is counted) until a later run retries the request and gets an answer. A row that
        cannot be read is replaced by any answer, as it is neither.
        """
        now = time.time()
        rows = [
            (k, backend, int(r.ok), json.dumps(r.to_json(), ensure_ascii=False), now)
            for k, r in entries.items()
        ]
        with self._reporting_damage(), self._transaction():
            self._conn.executemany(
                f"INSERT INTO {TABLE} (key, backend, ok, response, created)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET ok=excluded.ok,"
                " response=excluded.response, created=excluded.created"
                f" WHERE {TABLE}.ok = 0 OR NOT vlmscope_readable({TABLE}.response)",
                rows,
            )

    def count(self) -> int:
        with self._reporting_damage():
            return int(self._conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

    def keys(self) -> list[str]:
        with self._reporting_damage():
            return [k for (k,) in self._conn.execute(f"SELECT key FROM {TABLE}").fetchall()]

    def close(self) -> None:
        self._conn.close()

    def copy_rows(self, rows: Iterable[tuple[str, str, int, str, float]]) -> None:
        """Rows as stored (backend and time included), for salvage; a key already present wins."""
        with self._reporting_damage(), self._transaction():
            self._conn.executemany(
                f"INSERT INTO {TABLE} (key, backend, ok, response, created)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING",
                rows,
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self._conn)

    @contextmanager
    def _reporting_damage(self) -> Iterator[None]:
        """Turn SQLite's "malformed" / "not a database" into `CacheDamaged` naming this file."""
        try:
            yield
        except sqlite3.DatabaseError as err:
            if _is_full(err):
                raise CacheFull(
                    f"{self.path}: the disk is full ({err}); every answer committed before "
                    "this one is kept: free space and run again to ask only what is missing"
                ) from None
            if not _is_damage(err):
                raise
            raise CacheDamaged(self.path, f"SQLite: {err}") from None

    def _note_unreadable(self, bad: Mapping[str, str]) -> None:
        """Remember unreadable rows and warn once per key: they are asked again, not dropped."""
        new = {k: why for k, why in bad.items() if k not in self.unreadable}
        if not new:
            return
        self.unreadable.update(new)
        listed = "; ".join(f"{k} ({why})" for k, why in new.items())
        logger.warning(
            "%s: %d cached row(s) cannot be read and are treated as missing, so their requests"
            " are asked again: %s",
            self.path,
            len(new),
            listed,
        )


def _is_full(err: sqlite3.DatabaseError) -> bool:
    return getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(
        err
    )


def schema_problem(conn: sqlite3.Connection, *, empty_ok: bool = True) -> str | None:
    """Why the database is not a vlmscope cache, or None; an empty one is a new cache.

    Raises `sqlite3.DatabaseError` when its table list itself cannot be read.
    """
    query = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    tables = [name for (name,) in conn.execute(query).fetchall()]
    if not tables and empty_ok:
        return None
    if TABLE not in tables:
        return f"it has no {TABLE!r} table" + (f", only {', '.join(tables)}" if tables else "")
    info = conn.execute(f"PRAGMA table_info({TABLE})").fetchall()
    columns = tuple((name, str(kind).upper(), int(pk)) for _, name, kind, _, _, pk in info)
    if columns != _COLUMNS:
        return f"its {TABLE!r} table has columns {columns}"
    return None


def _retry_while_locked(step: Callable[[], object], timeout_s: float) -> None:
    """Run a setup step that SQLite may refuse while another process sets up the same file.

    Switching a new database to WAL needs an exclusive lock and does not wait on the busy
    timeout, so processes of one `accelerate launch` opening a fresh cache together can see
    "database is locked"; the step succeeds once the other process is done.
    """
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


class _Transaction:
    """BEGIN IMMEDIATE takes the write lock up front, so concurrent writers queue, not deadlock."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self._conn.execute("COMMIT")
        elif self._conn.in_transaction:  # SQLite ends it itself after some errors
            self._conn.execute("ROLLBACK")
