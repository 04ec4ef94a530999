"""Drive `run_eval.py` subprocesses of one config on one output folder, SIGKILLing each at a
chosen point of its run, and tell afterwards which phase the kill landed in.

The run: the oracle as baseline and two API models served by a local stub (`OpenAIStub`), on
the `colours` track and the pairwise `colours_pairwise` track judged by the same stub. Kill
points are signals one can observe from outside: the k-th call a run makes to the stub (a bot
generating, or the judge), the number of rows in the cache, a result folder being written (its
hidden staging copy, named with the writer's pid) or replaced (a new inode), the joint board
being written, or a random time after the run took the output lock.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.foundation.test_resume import env
from tests.pairwise.test_pairwise_run import replies
from tests.servers import Call
from vlmscope.runner.output_lock import LOCK_NAME
from vlmscope.runner.results import BOARDS_DIR, board_dir, result_dir

ROOT = Path(__file__).resolve().parents[2]
BASELINE = "baseline"
BOTS = ("red-bot", "blue-bot")
MODELS = (BASELINE, *BOTS)
JUDGE = "judge"
TRACKS = ("colours", "colours_pairwise")
BOARD_TRACK = "colours_pairwise"
RUN_LIMIT_S = 120.0  # a run of this config takes a few seconds; past this it hangs
POLL_S = 0.002
ALL_RESULTS = len(MODELS) * len(TRACKS)
POINTS = ("generate", "rows", "judge", "writing", "written", "aggregate", "board", "time")

# a kill condition on the output folder: (the run's pid, result folders' inodes at its start,
# when it took the lock or None)
Check = Callable[[int, dict[Path, int], float | None], bool]


def write_config(path: Path, base_url: str) -> Path:
    api = {"backend": "openai", "base_url": base_url, "concurrency": 2, "max_retries": 1}
    config = {
        "models": [
            {"backend": "oracle", "name": BASELINE},
            *({**api, "name": bot, "model": bot} for bot in BOTS),
        ],
        "tracks": [
            {"name": "colours", "options": {"n_samples": 24}},
            {
                "name": "colours_pairwise",
                "judge": {**api, "name": JUDGE, "model": JUDGE, "concurrency": 4},
                "options": {"baseline": BASELINE, "bootstrap_rounds": 20},
            },
        ],
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


class KillSwitch:
    """The stub's replier (the bots and judge of `tests.pairwise`), which SIGKILLs the armed
    run when it makes its k-th call of a kind (`generate`: a bot is asked; `judge`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()  # by kind, since the last `arm`
        self._pid: int | None = None
        self._target: tuple[str, int] | None = None
        self.fired = False

    def arm(self, pid: int, target: tuple[str, int] | None) -> None:
        with self._lock:
            self.calls.clear()
            self._pid, self._target, self.fired = pid, target, False

    def disarm(self) -> None:
        with self._lock:
            self._pid = self._target = None

    def __call__(self, call: Call) -> str:
        kind = JUDGE if (call.body or {}).get("model") == JUDGE else "generate"
        with self._lock:
            self.calls[kind] += 1
            if self._pid is not None and self._target == (kind, self.calls[kind]):
                os.kill(self._pid, signal.SIGKILL)  # before it gets this call's answer
                self.fired = True
        return str(replies(call))


@dataclass(frozen=True)
class Totals:
    """What an uninterrupted run leaves in the cache."""

    generated: int  # rows of the three models
    judged: int  # rows of the judge
    bots: int  # rows of the two API models (each asked through the stub)


@dataclass
class State:
    """The output folder as a killed run left it."""

    generated: int  # cached rows of the models
    judged: int  # cached rows of the judge
    bots: int  # cached rows of the API models
    fresh: int  # result folders this run replaced or created
    board_fresh: bool
    staging: list[str]  # this run's half-written folders
    started: bool  # it had taken the output lock (it empties the lock's note when done)


@dataclass
class Kill:
    point: str
    phase: str
    state: State


@dataclass
class Campaign:
    config: Path
    out: Path
    switch: KillSwitch
    totals: Totals
    rng: random.Random
    kills: list[Kill] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # kill points the run finished before
    runs: int = 0

    def kill_at(self, point: str) -> None:
        """One run, killed at `point` (skipped when the folder is past that point already)."""
        if point not in POINTS:
            raise ValueError(f"unknown kill point {point!r}; known: {', '.join(POINTS)}")
        now = observe(self.out, -1, {})
        target, check = self._trigger(point, now)
        if target is None and check is None:
            return
        before = inodes(self.out)
        proc = self._launch()
        self.switch.arm(proc.pid, target)
        started = None
        try:
            deadline = time.monotonic() + RUN_LIMIT_S
            while proc.poll() is None:
                if time.monotonic() > deadline:
                    pytest.fail(f"run {self.runs} did not end within {RUN_LIMIT_S:g} s")
                if started is None and lock_pid(self.out) == proc.pid:
                    started = time.monotonic()
                if check is not None and check(proc.pid, before, started):
                    proc.send_signal(signal.SIGKILL)
                    break
                time.sleep(POLL_S)
            proc.wait(30)
        finally:
            self.switch.disarm()
            if proc.poll() is None:
                proc.kill()
        if proc.returncode == 0:
            self.missed.append(point)
            return
        assert proc.returncode == -signal.SIGKILL, self._stderr()
        state = observe(self.out, proc.pid, before, started=started is not None)
        self.kills.append(Kill(point, phase_of(state, self.totals), state))
        assert state.generated <= self.totals.generated and state.judged <= self.totals.judged

    def run_to_end(self) -> None:
        proc = self._launch()
        try:
            code = proc.wait(RUN_LIMIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"the resuming run did not end within {RUN_LIMIT_S:g} s")
        assert code == 0, self._stderr()

    def _launch(self) -> subprocess.Popen[bytes]:
        self.runs += 1
        command = [sys.executable, str(ROOT / "run_eval.py"), "--config", str(self.config),
                   "--output-dir", str(self.out)]  # fmt: skip
        self.out.parent.mkdir(parents=True, exist_ok=True)
        with open(self._stderr_path(), "wb") as stderr:
            return subprocess.Popen(command, env=env(), stdout=subprocess.DEVNULL, stderr=stderr)

    def _stderr_path(self) -> Path:
        return self.out.parent / f"{self.out.name}-stderr.txt"

    def _stderr(self) -> str:
        return self._stderr_path().read_text(errors="replace")[-4000:]

    def _trigger(self, point: str, now: State) -> tuple[tuple[str, int] | None, Check | None]:
        """(a stub call to kill at, or a check of the folder to kill on); (None, None): skip."""
        rng, out, totals = self.rng, self.out, self.totals
        if point in ("generate", "judge"):
            missing = totals.bots - now.bots if point == "generate" else totals.judged - now.judged
            return ((point, rng.randint(1, missing)) if missing else None), None  # >= 1 call each
        if point == "rows" and now.generated < totals.generated:
            rows = rng.randint(now.generated + 1, totals.generated)

            def committed(pid: int, before: dict[Path, int], started: float | None) -> bool:
                return sum(cache_counts(out)[m] for m in MODELS) >= rows

            return None, committed
        if point in ("writing", "board"):

            def writing(pid: int, before: dict[Path, int], started: float | None) -> bool:
                return bool(staging(out, pid, boards=point == "board"))

            return None, writing
        if point in ("written", "aggregate"):  # aggregate: every result written, the board next
            n = ALL_RESULTS if point == "aggregate" else rng.randint(1, ALL_RESULTS - 1)

            def written(pid: int, before: dict[Path, int], started: float | None) -> bool:
                return fresh_folders(out, before) >= n

            return None, written
        if point == "time":
            after = rng.uniform(0.0, 1.2)  # an uninterrupted run takes about 1 s

            def elapsed(pid: int, before: dict[Path, int], started: float | None) -> bool:
                return started is not None and time.monotonic() - started >= after

            return None, elapsed
        return None, None


def phase_of(state: State, totals: Totals) -> str:
    """Where the run was when it died, from what it left behind."""
    if not state.started:
        return "startup"
    if state.staging:
        return "aggregate" if any(s.startswith(BOARDS_DIR) for s in state.staging) else "write"
    if state.generated < totals.generated:
        return "generate"
    if state.judged < totals.judged:
        return "judge"
    if state.fresh < ALL_RESULTS:
        return "write"
    return "aggregate" if not state.board_fresh else "exiting"


def observe(out: Path, pid: int, before: dict[Path, int], *, started: bool = False) -> State:
    counts = cache_counts(out)
    board = board_dir(out, BOARD_TRACK)
    return State(
        generated=sum(counts[m] for m in MODELS),
        judged=counts[JUDGE],
        bots=sum(counts[b] for b in BOTS),
        fresh=fresh_folders(out, before),
        board_fresh=_inode(board) is not None and _inode(board) != before.get(board),
        staging=staging(out, pid, boards=True) + staging(out, pid, boards=False),
        started=started or lock_pid(out) == pid,
    )


def cache_counts(out: Path) -> Counter[str]:
    """Cached rows by backend name, read-only: a killed run's WAL is left as it is."""
    path = out / "cache.sqlite"
    if not path.exists():
        return Counter()
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as conn:
            return Counter(
                dict(conn.execute("SELECT backend, COUNT(*) FROM responses GROUP BY backend"))
            )
    except sqlite3.OperationalError:  # created, not set up yet
        return Counter()


def result_folders(out: Path) -> list[Path]:
    return [result_dir(out, m, t) for m in MODELS for t in TRACKS]


def inodes(out: Path) -> dict[Path, int]:
    found = {p: _inode(p) for p in [*result_folders(out), board_dir(out, BOARD_TRACK)]}
    return {p: i for p, i in found.items() if i is not None}


def fresh_folders(out: Path, before: dict[Path, int]) -> int:
    """Result folders swapped in since `before` (an export renames a new folder into place)."""
    return sum(
        1 for p in result_folders(out) if (i := _inode(p)) is not None and i != before.get(p)
    )


def staging(out: Path, pid: int, *, boards: bool) -> list[str]:
    """The hidden folders of an export in progress by process `pid`."""
    parents = [out / BOARDS_DIR] if boards else [out / m for m in MODELS]
    found = []
    for parent in parents:
        try:
            names = os.listdir(parent)
        except FileNotFoundError:
            continue
        found += [
            f"{parent.name}/{n}"
            for n in names
            if n.startswith(".") and (n.endswith(f".tmp-{pid}") or n.endswith(f".old-{pid}"))
        ]
    return found


def lock_pid(out: Path) -> int | None:
    try:
        note = json.loads((out / LOCK_NAME).read_text() or "{}")
    except (OSError, ValueError):
        return None
    return note.get("pid") if isinstance(note, dict) else None


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None
