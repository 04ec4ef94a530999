"""A full or failing vote store refuses the message or the vote with one plain sentence (the log
names the file and SQLite's reason), stores nothing half, and the arena takes battles again
once the store can write; local contestants load one at a time, before any battle."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from typing import Any

import pytest

from tests.arena.conftest import MakeArena, png
from tests.arena.drive import ask
from vlmscope.arena.contestants import BackendContestant, warm_up
from vlmscope.arena.safety import Refused
from vlmscope.arena.service import STORE_PROBLEM
from vlmscope.messages import Request, Response


class FullDisk:
    """The store's connection, with every write failing as SQLite fails on a full disk while
    `full` is set."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self.full = False

    def execute(self, sql: str, *args: Any) -> Any:
        if self.full and sql.lstrip().upper().startswith(("INSERT", "UPDATE", "COMMIT")):
            raise sqlite3.OperationalError("database or disk is full")
        return self.connection.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        if self.full:
            raise sqlite3.OperationalError("database or disk is full")
        return self.connection.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.connection, name)


def test_a_full_store_refuses_plainly_and_recovers(
    make_arena: MakeArena, caplog: pytest.LogCaptureFixture
) -> None:
    arena = make_arena()
    disk = FullDisk(arena.store._db)
    arena.store._db = disk  # type: ignore[assignment]
    answered = ask(arena, "first question", images=[png()])[-1]

    disk.full = True
    with caplog.at_level(logging.ERROR), pytest.raises(Refused) as refused:
        arena.open_message("session-2", "10.0.0.2", None, "second question", [png("blue")])
    assert str(refused.value) == STORE_PROBLEM
    assert f"vote store {arena.store.path}: database or disk is full" in caplog.text
    with pytest.raises(Refused, match="cannot store battles or votes"):
        arena.vote("session-1", "10.0.0.1", answered.battle_id, "model_a")
    assert arena.store.vote_count() == 0 and not disk.connection.in_transaction

    disk.full = False
    battle = arena.open_message("session-3", "10.0.0.3", None, "third question")
    disk.full = True  # the answers arrive, but cannot be saved: the battle takes no vote

    async def answers() -> list[Any]:
        return [update async for update in arena.answer(battle)]

    last = asyncio.run(answers())[-1]
    assert last.done and last.unstored
    disk.full = False
    reveal = arena.vote("session-1", "10.0.0.1", answered.battle_id, "model_a")
    assert reveal.stored_now and arena.store.vote_count() == 1


class SlowLoad:
    """A local backend whose model takes a while to load, recording how many load at once."""

    loading = 0
    most = 0
    lock = threading.Lock()

    def __init__(self) -> None:
        self.loaded = False

    def load(self) -> None:
        with SlowLoad.lock:
            SlowLoad.loading += 1
            SlowLoad.most = max(SlowLoad.most, SlowLoad.loading)
        time.sleep(0.05)
        self.loaded = True
        with SlowLoad.lock:
            SlowLoad.loading -= 1

    async def agenerate(self, request: Request) -> Response:
        assert self.loaded, "asked before its model loaded"
        return Response("answer")


def test_local_contestants_load_one_at_a_time_before_any_battle() -> None:
    backends = [SlowLoad() for _ in range(3)]
    contestants = {f"m{k}": BackendContestant(f"m{k}", b) for k, b in enumerate(backends)}  # type: ignore[arg-type]
    threads = [threading.Thread(target=warm_up, args=(contestants,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(b.loaded for b in backends) and SlowLoad.most == 1
