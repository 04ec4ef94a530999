"""Load: 50 sessions battling and voting at once against two streaming stub models, killed
(SIGKILL) mid-load and restarted. Every acknowledged vote is in the store after the restart,
with the winner that was acknowledged; votes sent but not acknowledged are retried and stored
once; the restarted arena serves 50 more sessions; no vote is ever stored twice. Bounded: a
fixed number of battles, each run under a time limit. `-m slow` runs a larger version."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.arena.conftest import config_dict, zeta_reply
from tests.arena.sse_stub import SSEStub
from vlmscope.arena.vote_store import VoteStore

REPO = Path(__file__).resolve().parents[2]
LIMITS = {"asks_per_session": 100, "asks_per_ip": 100_000, "votes_per_session": 100,
          "votes_per_ip": 100_000}  # fmt: skip


@pytest.fixture
def stubs() -> Iterator[tuple[SSEStub, SSEStub]]:
    # answers of ~10 words, 20 ms apart: each battle streams for ~0.2 s, so sessions overlap
    with (
        SSEStub(zeta_reply, chunk_delay_s=0.02) as zeta,
        SSEStub(
            lambda m: "omega answers with a few more words than that", chunk_delay_s=0.02
        ) as omega,
    ):
        yield zeta, omega


def _driver(
    config: Path, sessions: int, rounds: int, prefix: str, retry: Path | None = None
) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "tests.arena.load_driver", str(config), str(sessions),
            str(rounds), prefix, *([str(retry)] if retry else [])]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)


def _fields(lines: list[str], kind: str) -> list[list[str]]:
    """The complete lines of `kind` (a line cut short by the kill was never acknowledged)."""
    split = (line.rstrip("\n").split("\t") for line in lines)
    return [f for f in split if len(f) == 4 and f[0] == kind]


def _acks(lines: list[str]) -> dict[str, str]:
    """battle id -> acknowledged winner."""
    return {f[2]: f[3] for f in _fields(lines, "ACK")}


def run_load(
    stubs: tuple[SSEStub, SSEStub], tmp_path: Path, sessions: int, rounds: int, limit_s: float
) -> None:
    store_path = tmp_path / "battles.sqlite"
    config = tmp_path / "arena.yaml"
    config.write_text(yaml.safe_dump(config_dict(stubs, store_path, limits=LIMITS)))
    kill_after = sessions * rounds // 2

    # 1. the load, killed once half the votes are acknowledged
    started = time.monotonic()
    first = _driver(config, sessions, rounds, "first")
    assert first.stdout is not None
    lines: list[str] = []
    while len(_acks(lines)) < kill_after:
        line = first.stdout.readline()
        assert line, f"the driver stopped early after {len(lines)} lines"
        lines.append(line)
        assert time.monotonic() - started < limit_s, "the load ran past its time limit"
    first.send_signal(signal.SIGKILL)
    lines += first.stdout.read().splitlines()  # what it printed (and so had acked) before dying
    first.wait(timeout=10)
    acked_first = _acks(lines)
    assert kill_after <= len(acked_first) < sessions * rounds  # killed mid-load
    assert min(s.max_in_flight for s in stubs) >= sessions // 2  # sessions really overlapped

    store = VoteStore(store_path)
    for battle_id, winner in acked_first.items():
        assert (store.vote(battle_id) or {}).get("winner") == winner, battle_id
    store.close()

    # 2. restart: retry what was shown but not acknowledged, and serve as many new sessions
    log = tmp_path / "first.log"
    log.write_text("".join(line if line.endswith("\n") else line + "\n" for line in lines))
    second = _driver(config, sessions, 1, "second", retry=log)
    out, _ = second.communicate(timeout=limit_s)
    assert second.returncode == 0
    acked_second = _acks(out.splitlines())
    shown = {f[2] for f in _fields(lines, "SHOWN")}
    assert shown - set(acked_first) <= set(acked_second)  # every unacknowledged vote retried
    assert sum(f[1].startswith("second") for f in _fields(out.splitlines(), "ACK")) == sessions

    store = VoteStore(store_path)
    votes = store.votes()
    acked = {**acked_first, **acked_second}
    assert len(votes) == len(acked)  # every vote exactly once: no loss, no duplicate
    assert len({v.record["question_id"] for v in votes}) == len(votes)
    for battle_id, winner in acked.items():
        assert (store.vote(battle_id) or {}).get("winner") == winner, battle_id
    store.close()
    assert time.monotonic() - started < 2 * limit_s


def test_fifty_sessions_voting_through_a_restart(
    stubs: tuple[SSEStub, SSEStub], tmp_path: Path
) -> None:
    run_load(stubs, tmp_path, sessions=50, rounds=3, limit_s=25)


@pytest.mark.slow
def test_two_hundred_sessions_voting_through_a_restart(
    stubs: tuple[SSEStub, SSEStub], tmp_path: Path
) -> None:
    run_load(stubs, tmp_path, sessions=200, rounds=5, limit_s=240)
