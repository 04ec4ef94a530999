"""The response cache read without writing: what a dry run needs to know is cached.

`vlmscope.cache.ResponseCache` creates its file and takes part in writing; a dry run must leave
the output folder exactly as it found it, so it reads the same table through a read-only
connection (a missing file is an empty cache).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from vlmscope.cache import TABLE, UnreadableRow, decode_response, read_responses
from vlmscope.messages import Response


class CacheReader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        if path.is_file():
            # immutable: no lock or shared-memory file is made beside a cache nobody is
            # writing; one with a write-ahead log in use is read as it is being written
            live = Path(f"{path}-wal").exists()
            flags = "mode=ro" if live else "mode=ro&immutable=1"
            self._conn = sqlite3.connect(f"file:{path.resolve()}?{flags}", uri=True)

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """The readable stored responses of `keys` (an unreadable row reads as missing)."""
        if self._conn is None:
            return {}
        return read_responses(self._conn, keys)[0]

    def get(self, key: str) -> Response | None:
        return self.get_many([key]).get(key)

    def latest(self, backend: str, limit: int) -> list[Response]:
        """The backend's `limit` latest answered responses (by the name it stored them under)."""
        if self._conn is None:
            return []
        rows = self._conn.execute(
            f"SELECT response FROM {TABLE} WHERE backend = ? AND ok = 1 "
            "ORDER BY created DESC LIMIT ?",
            (backend, limit),
        ).fetchall()
        found = []
        for (text,) in rows:
            try:
                found.append(decode_response(text))
            except UnreadableRow:
                continue
        return found

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
