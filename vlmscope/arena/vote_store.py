"""The vote store: one SQLite file in WAL mode holding images, battles shown and votes cast.

Durability is the point. A vote is acknowledged to the user only after its transaction has
committed with `synchronous=FULL`, so a crash or restart right after loses nothing that was
acknowledged. Each table is keyed so a retry cannot duplicate a row: an image by its sha256
(stored once however many battles show it), a battle by its id, a vote by its battle's id (a
second vote on the same battle is not a second row; the caller learns the first one stands).
Every write runs in `BEGIN IMMEDIATE`, as `vlmscope.runner.cache` does, so two processes on
one file serialise rather than fail mid-transaction.

A store SQLite cannot use (a damaged file, a full disk, a file that is not a database) raises
`StoreFailed` naming the file, never SQLite's own error: the Space then closes voting with a
plain sentence and keeps every other tab.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.arena.battles import Battle
from vlmscope.arena.safety import CheckedImage
from vlmscope.input_errors import InputError
from vlmscope.owned_files import SQLITE_COMPANIONS, refuse_unowned

_SCHEMA = """
CREATE TABLE IF NOT EXISTS images (
    sha256 TEXT PRIMARY KEY, format TEXT NOT NULL, data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS battles (
    battle_id TEXT PRIMARY KEY, state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS votes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    battle_id TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL,
    pushed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY, value BLOB NOT NULL
);
"""
_SAVE_BATTLE = (
    "INSERT INTO battles VALUES (?, ?) ON CONFLICT(battle_id) DO UPDATE SET state = excluded.state"
)


class StoreFailed(RuntimeError, InputError):
    """The vote store cannot be opened, read or written; the message names the file."""

    def __init__(self, path: Path, error: sqlite3.Error) -> None:
        self.path = path
        super().__init__(f"vote store {path}: {error} ({type(error).__name__})")


@dataclass(frozen=True)
class StoredVote:
    seq: int
    record: dict[str, Any]


class VoteStore:
    """One connection shared by the Space's threads under a lock; safe across processes too."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        refuse_unowned(self.path, SQLITE_COMPANIONS)  # a link planted there is not followed
        with self._failing():
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
        try:
            with self._failing():
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            with self._write() as db:
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    db.execute(statement)
        except StoreFailed:
            self._db.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _failing(self) -> Iterator[None]:
        """SQLite's errors as `StoreFailed`, naming the file."""
        try:
            yield
        except sqlite3.Error as err:
            raise StoreFailed(self.path, err) from err

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._failing():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")  # a full disk fails here: rolled back below
            except BaseException:
                if self._db.in_transaction:
                    with suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                raise

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock, self._failing():
            return self._db.execute(sql, args).fetchall()

    def secret(self) -> bytes:
        """A random salt made once per store (anonymous session ids stay stable across
        restarts of the Space, and differ between stores)."""
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (secrets.token_bytes(32),)
            )
            return bytes(db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0])

    # images -------------------------------------------------------------------------------
    def put_images(self, images: Iterable[CheckedImage]) -> None:
        rows = [(i.sha256, i.format, i.data) for i in images]
        if rows:
            with self._write() as db:
                db.executemany("INSERT OR IGNORE INTO images VALUES (?, ?, ?)", rows)

    def image(self, sha256: str) -> tuple[str, bytes]:
        """(format, bytes) of a stored image; KeyError naming the hash when absent."""
        rows = self._read("SELECT format, data FROM images WHERE sha256 = ?", (sha256,))
        if not rows:
            raise self._no_image(sha256)
        return str(rows[0][0]), bytes(rows[0][1])

    def image_format(self, sha256: str) -> str:
        """The format of a stored image, without reading its bytes; KeyError when absent."""
        rows = self._read("SELECT format FROM images WHERE sha256 = ?", (sha256,))
        if not rows:
            raise self._no_image(sha256)
        return str(rows[0][0])

    def _no_image(self, sha256: str) -> KeyError:
        return KeyError(f"image {sha256} is not in the store {self.path}")

    # battles ------------------------------------------------------------------------------
    def save_battle(self, battle: Battle) -> None:
        with self._write() as db:
            db.execute(_SAVE_BATTLE, _battle_params(battle))

    def battle(self, battle_id: str) -> Battle | None:
        rows = self._read("SELECT state FROM battles WHERE battle_id = ?", (battle_id,))
        return Battle.from_json(json.loads(rows[0][0])) if rows else None

    # votes --------------------------------------------------------------------------------
    def record_vote(self, battle: Battle, record: dict[str, Any]) -> dict[str, Any]:
        """Store the vote on `battle` (and the battle, marked voted) in one transaction, unless
        the battle already has one. Returns the vote that stands: `record`, or the earlier one
        (a retried or repeated vote is never a second row)."""
        text = json.dumps(record, ensure_ascii=False)
        with self._write() as db:
            row = db.execute(
                "SELECT record FROM votes WHERE battle_id = ?", (battle.battle_id,)
            ).fetchone()
            if row is not None:
                earlier: dict[str, Any] = json.loads(row[0])
                return earlier
            db.execute(
                "INSERT INTO votes (battle_id, record) VALUES (?, ?)", (battle.battle_id, text)
            )
            db.execute(_SAVE_BATTLE, _battle_params(battle))
        return record

    def vote(self, battle_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT record FROM votes WHERE battle_id = ?", (battle_id,))
        return json.loads(rows[0][0]) if rows else None

    def votes(self) -> list[StoredVote]:
        """Votes in the order they were cast."""
        rows = self._read("SELECT seq, record FROM votes ORDER BY seq")
        return [StoredVote(int(s), json.loads(r)) for s, r in rows]

    def vote_count(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM votes")[0][0])

    def unpushed(self, limit: int) -> list[StoredVote]:
        rows = self._read(
            "SELECT seq, record FROM votes WHERE pushed = 0 ORDER BY seq LIMIT ?", (limit,)
        )
        return [StoredVote(int(s), json.loads(r)) for s, r in rows]

    def mark_pushed(self, seqs: Iterable[int]) -> None:
        with self._write() as db:
            db.executemany("UPDATE votes SET pushed = 1 WHERE seq = ?", [(s,) for s in seqs])


def _battle_params(battle: Battle) -> tuple[str, str]:
    """(battle_id, state): the battle as `_SAVE_BATTLE` stores it."""
    return battle.battle_id, json.dumps(battle.to_json(), ensure_ascii=False)
