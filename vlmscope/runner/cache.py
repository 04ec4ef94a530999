"""Durable response cache: the reason a killed run loses nothing.

Every finished response (and every judgment, which is just a response from a judge backend) is
committed to an SQLite file before the next batch is sent. SQLite gives us what a resumable run
needs without a server: a transaction is either fully on disk or absent (a SIGKILL mid-write leaves
the previous state), the primary key makes a second write of the same key a no-op (exactly one
stored result per request), and its file locking lets several processes write to one file.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from vlmscope.messages import Response

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    ok INTEGER NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""


class ResponseCache:
    """Maps cache keys (see `vlmscope.messages.cache_key`) to responses, durably."""

    def __init__(self, path: str | Path, *, timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=timeout_s, isolation_level=None)
        _retry_while_locked(lambda: self._conn.execute("PRAGMA journal_mode=WAL"), timeout_s)
        # FULL: a committed batch survives a power cut, not only a killed process.
        self._conn.execute("PRAGMA synchronous=FULL")
        _retry_while_locked(lambda: self._conn.execute(_SCHEMA), timeout_s)

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Response] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._conn.execute(
                f"SELECT key, response FROM responses WHERE key IN ({marks})", chunk
            )
            for key, text in rows:
                found[key] = Response.from_json(json.loads(text))
        return found

    def get(self, key: str) -> Response | None:
        return self.get_many([key]).get(key)

    def put_many(self, entries: Mapping[str, Response], *, backend: str) -> None:
        """Store a batch in one transaction.

        A key holds one response. A successful response is final; a failed one is kept (so the
        failure is counted) until a later run retries the request and gets an answer.
        """
        now = time.time()
        rows = [
            (k, backend, int(r.ok), json.dumps(r.to_json(), ensure_ascii=False), now)
            for k, r in entries.items()
        ]
        with self._transaction():
            self._conn.executemany(
                "INSERT INTO responses (key, backend, ok, response, created) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(key) DO UPDATE SET ok=excluded.ok, response=excluded.response,"
                " created=excluded.created WHERE responses.ok = 0",
                rows,
            )

    def count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def keys(self) -> list[str]:
        return [k for (k,) in self._conn.execute("SELECT key FROM responses")]

    def close(self) -> None:
        self._conn.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._conn)


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
        self._conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
