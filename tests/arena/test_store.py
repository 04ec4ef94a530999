"""The vote store keeps what it acknowledged: a vote committed, then the process killed with
SIGKILL, is there after a restart; a retried vote is one row; an image is stored once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from tests.arena.conftest import png
from tests.arena.records import store_vote
from vlmscope.arena.vote_store import VoteStore

REPO = Path(__file__).resolve().parents[2]
WRITER = """
import sys, time
from tests.arena.records import store_vote
from vlmscope.arena.vote_store import VoteStore
store = VoteStore(sys.argv[1])
for number in range(int(sys.argv[2])):
    store_vote(store, number, "model_a")
    print("ACK", number, flush=True)
time.sleep(60)
"""


def test_an_acknowledged_vote_survives_a_killed_process(tmp_path: Path) -> None:
    path = tmp_path / "votes.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), "5"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert writer.stdout is not None
    acknowledged = [writer.stdout.readline().split()[1] for _ in range(5)]
    writer.send_signal(signal.SIGKILL)  # no close, no checkpoint: only what was committed
    writer.wait(timeout=10)
    store = VoteStore(path)
    assert [v.record["question_id"] for v in store.votes()] == [
        f"q{int(n):04d}" for n in acknowledged
    ]
    shown = store.battle("battle-4")
    assert shown is not None and shown.winner is None
    store.close()


def test_a_retried_vote_is_stored_once_and_the_first_stands(tmp_path: Path) -> None:
    store = VoteStore(tmp_path / "votes.sqlite")
    first = store_vote(store, 1, "model_a")
    again = store_vote(store, 1, "model_b")
    assert again == first and again["winner"] == "model_a"
    assert store.vote_count() == 1
    store.close()
    reopened = VoteStore(tmp_path / "votes.sqlite")  # and after a restart too
    assert store_vote(reopened, 1, "tie")["winner"] == "model_a"
    assert reopened.vote_count() == 1


def test_images_are_stored_once_by_hash(tmp_path: Path) -> None:
    store = VoteStore(tmp_path / "votes.sqlite")
    shared, other = png("green"), png("blue")
    store_vote(store, 1, "model_a", (shared,))
    store_vote(store, 2, "tie", (shared, other))
    with closing(sqlite3.connect(tmp_path / "votes.sqlite")) as db:
        assert db.execute("SELECT COUNT(*) FROM images").fetchone() == (2,)
    hashes = [v.record["images"] for v in store.votes()]
    assert hashes[0][0] == hashes[1][0] and hashes[1][0] != hashes[1][1]
    assert store.image(hashes[1][1]) == ("PNG", other)


def test_the_secret_is_made_once_per_store(tmp_path: Path) -> None:
    first = VoteStore(tmp_path / "a.sqlite").secret()
    assert VoteStore(tmp_path / "a.sqlite").secret() == first
    assert VoteStore(tmp_path / "b.sqlite").secret() != first
