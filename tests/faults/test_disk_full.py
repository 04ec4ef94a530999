"""The output folder's disk fills up during a run: it stops naming what it could not write, the
cache stays whole and readable, and once space is freed a re-run finishes with a clean run's
results.

The output folder (and the cache in it) lives on a small tmpfs of its own. The run: an API
model whose answers are large and do not compress, and the oracle as baseline, on the pairwise
track (judged through the stub) and the colour track. The disk is filled when the judge is first
asked, when every answer is committed:

- leaving 384 KB, with 64 KB answers: the judge's rows (about 150 KB) still fit, the first
  result folder (8 answers, 512 KB) does not: the write phase meets the full disk. Where no
  tmpfs can be mounted (not root, no `mount`), this run is made in-process with every parquet
  write failing with ENOSPC instead;
- the same with 160 KB answers: a details column over 1 MB, which the parquet writer flushes
  while writing (a known bug: the process aborts; tmpfs only);
- leaving nothing: the judge's first row cannot be committed (tmpfs only).
"""

from __future__ import annotations

import base64
import errno
import os
import random
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets
import pytest
import yaml

from tests.faults.fault_plan import conversation
from tests.faults.helpers import (
    cache_rows,
    finish_within,
    integrity,
    leftovers,
    stable_board,
    stable_result,
)
from tests.foundation.test_resume import env
from tests.servers import Call, OpenAIStub
from vlmscope.config import load_config
from vlmscope.runner.loop import run
from vlmscope.runner.results import board_dir, result_dir

ROOT = Path(__file__).resolve().parents[2]
BOT, HUGE_BOT, BASELINE, JUDGE = "big-bot", "huge-bot", "baseline", "judge"
TRACKS = ("colours_pairwise", "colours")
ANSWER_BYTES = {BOT: 64 * 1024, HUGE_BOT: 160 * 1024}  # 8 of the latter: a column over 1 MB
WRITE_MARGIN = 384 * 1024  # room for the judge's rows, not for a result folder
DISK = "16m"


def big_answer(call: Call) -> str:
    """Text that does not compress (its size by the model asked), the same for the same
    request on every run; the judge always sees a tie."""
    body = call.body or {}
    model = str(body.get("model"))
    if model == JUDGE:
        return "[[A=B]]"
    seed = int(conversation(body.get("messages", []))[:16], 16)
    return base64.b64encode(random.Random(seed).randbytes(ANSWER_BYTES[model] * 3 // 4)).decode()


class Disk:
    """The output folder's file system: `fill(margin)` leaves `margin` bytes free, `free()`
    undoes it. Faked (`fake=True`), every parquet write fails with ENOSPC while it is "full"."""

    def __init__(self, root: Path, *, fake: bool) -> None:
        self.root = root
        self.fake = fake
        self.full = threading.Event()
        self.ballast = root / "ballast"

    def fill(self, margin: int) -> None:
        if not self.fake:
            fd = os.open(self.ballast, os.O_CREAT | os.O_WRONLY, 0o600)
            try:
                os.posix_fallocate(fd, 0, max(1, self.free_bytes() - margin))
            finally:
                os.close(fd)
        self.full.set()

    def free(self) -> None:
        self.ballast.unlink(missing_ok=True)
        self.full.clear()

    def free_bytes(self) -> int:
        stat = os.statvfs(self.root)
        return stat.f_bavail * stat.f_frsize


def mount(root: Path) -> Disk:
    """A tmpfs of `DISK` at `root` if one can be mounted here, else a faked disk."""
    root.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(root)],
        capture_output=True,
        check=False,
    )
    return Disk(root, fake=mounted.returncode != 0)


def unmount(disk: Disk) -> None:
    if not disk.fake:
        subprocess.run(["umount", "-l", str(disk.root)], check=False)


class FillOnFirstJudgeCall:
    """The stub's replier: big answers, and the armed disk filled when the judge is asked."""

    def __init__(self) -> None:
        self.armed: tuple[Disk, int] | None = None
        self.calls = 0

    def __call__(self, call: Call) -> str:
        self.calls += 1
        if self.armed is not None and (call.body or {}).get("model") == JUDGE:
            disk, margin = self.armed
            self.armed = None
            disk.fill(margin)
        return big_answer(call)


@dataclass(frozen=True)
class Served:
    replier: FillOnFirstJudgeCall
    base_url: str
    config: Path
    clean: Path  # an uninterrupted run on a roomy disk
    asked: int  # stub calls the clean run made


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One stub for the module (its URL is part of the bot's identity) and a clean run."""
    replier = FillOnFirstJudgeCall()
    work = tmp_path_factory.mktemp("disk_full")
    with OpenAIStub(replier) as stub:
        config = write_config(work / "run.yaml", stub.base_url)
        clean = work / "clean"
        finish_within(lambda: run(load_config(config, {"output_dir": str(clean)})), 120, "clean")
        yield Served(replier, stub.base_url, config, clean, replier.calls)


def write_config(path: Path, base_url: str, bot: str = BOT) -> Path:
    api = {"backend": "openai", "base_url": base_url, "concurrency": 4, "max_retries": 0}
    config = {
        "models": [{**api, "name": bot, "model": bot}, {"backend": "oracle", "name": BASELINE}],
        "tracks": [
            {
                "name": "colours_pairwise",
                "judge": {**api, "name": JUDGE, "model": JUDGE},
                "options": {"baseline": BASELINE, "bootstrap_rounds": 10},
            },
            {"name": "colours", "options": {"n_samples": 12}},
        ],
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def snapshot(out: Path) -> dict[str, Any]:
    results = {(m, t): stable_result(out, m, t) for m in (BOT, BASELINE) for t in TRACKS}
    return {"results": results, "board": stable_board(out, "colours_pairwise")}


def fake_full_disk(disk: Disk, monkeypatch: pytest.MonkeyPatch) -> None:
    write = datasets.Dataset.to_parquet

    def to_parquet(self: datasets.Dataset, path: Any, *args: Any, **kwargs: Any) -> Any:
        if disk.full.is_set():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return write(self, path, *args, **kwargs)

    monkeypatch.setattr(datasets.Dataset, "to_parquet", to_parquet)


@dataclass(frozen=True)
class Stopped:
    code: int  # the exit code (negative: killed by that signal); 1 for an in-process error
    said: str  # the error it stopped with


def run_until_full(
    served: Served, out: Path, disk: Disk, margin: int, config: Path | None = None
) -> Stopped:
    """The run that meets the full disk, and how it stopped."""
    served.replier.armed, served.replier.calls = (disk, margin), 0
    config = config or served.config
    if disk.fake:
        with pytest.raises(OSError) as stopped:
            finish_within(
                lambda: run(load_config(config, {"output_dir": str(out)})), 120, "the run"
            )
        assert stopped.value.errno == errno.ENOSPC
        return Stopped(2, str(stopped.value))  # what the command line exits with
    command = [sys.executable, str(ROOT / "run_eval.py"), "--config", str(config),
               "--output-dir", str(out)]  # fmt: skip
    done = subprocess.run(command, env=env(), capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stdout[-2000:]
    assert disk.full.is_set()
    return Stopped(done.returncode, _last_error(done.stderr))


def _last_error(stderr: str) -> str:
    """The error the run stopped with: the last `SomeError: ...` line of its traceback(s),
    leaving out the noise of threads that outlive the interpreter's shutdown."""
    errors = [
        line
        for line in stderr.splitlines()
        if re.match(r"[\w.]+(Error|Exception): ", line) and "after shutdown" not in line
    ]
    return errors[-1] if errors else stderr[-500:]


def rerun_after_freeing(served: Served, out: Path, disk: Disk) -> None:
    disk.free()
    served.replier.calls = 0
    finish_within(lambda: run(load_config(served.config, {"output_dir": str(out)})), 120, "re-run")


def check_cache_and_output(served: Served, out: Path, disk: Disk) -> list[tuple[str, str, int]]:
    """While the disk is still full: the cache reads, whole, and nothing is half-written."""
    stored = cache_rows(out / "cache.sqlite")
    assert integrity(out / "cache.sqlite") == "ok" and all(ok for _, _, ok in stored)
    clean_keys = {k for k, _, _ in cache_rows(served.clean / "cache.sqlite")}
    assert {k for k, _, _ in stored} <= clean_keys
    assert leftovers(out) == [] and not (out / "run_report.json").exists()
    assert not (out / ".vlmscope.lock").exists()  # the lock was released, not left
    print(f"  cache while full: {len(stored)} of {len(clean_keys)} rows, integrity ok, "
          f"{disk.free_bytes() // 1024} KB free")  # fmt: skip
    return stored


def test_a_full_disk_stops_the_write_phase_and_a_rerun_recovers(served, tmp_path, monkeypatch):
    disk = mount(tmp_path / "disk")
    if disk.fake:
        fake_full_disk(disk, monkeypatch)
    try:
        out = disk.root / "out"
        stopped = run_until_full(served, out, disk, WRITE_MARGIN)
        assert served.replier.calls == served.asked  # each request asked once
        how = "ENOSPC faked in-process" if disk.fake else f"a tmpfs of {DISK}"
        print(f"\ndisk full in the write phase ({how}): exit code {stopped.code}, "
              f"the run said: {stopped.said[:300]}")  # fmt: skip
        failed_folder = result_dir(out, BOT, "colours_pairwise")
        assert stopped.code == 2  # an error message (`error: ...`), not a crash
        assert str(failed_folder) in stopped.said and "No space left on device" in stopped.said
        assert not failed_folder.exists()  # the first folder written is the one that failed
        stored = check_cache_and_output(served, out, disk)
        assert len(stored) == len(cache_rows(served.clean / "cache.sqlite"))  # all committed
        rerun_after_freeing(served, out, disk)
        assert served.replier.calls == 0  # everything came from the cache
        assert snapshot(out) == snapshot(served.clean)
        assert board_dir(out, "colours_pairwise").is_dir() and leftovers(out) == []
    finally:
        unmount(disk)
    print("  after freeing space: the re-run asked nothing and its results and board equal "
          "the clean run's")  # fmt: skip


@dataclass(frozen=True)
class JudgingFull:
    said: str
    cache: Path


@pytest.fixture(scope="module")
def judging_full(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JudgingFull]:
    """A run whose disk fills, to the last byte, when the judge is first asked; then freed and
    run again. Its checks are the tests below."""
    disk = mount(tmp_path_factory.mktemp("judging") / "disk")
    if disk.fake:
        unmount(disk)
        pytest.skip("a full disk under SQLite needs a tmpfs (mount -t tmpfs) here")
    try:
        out = disk.root / "out"
        stopped = run_until_full(served, out, disk, 0)
        said = stopped.said
        print(f"\ndisk full while judging: exit code {stopped.code}, the run said: {said[:300]}")
        assert stopped.code == 2  # an error message (`error: ...`), not a crash
        stored = check_cache_and_output(served, out, disk)
        assert sum(b != JUDGE for _, b, _ in stored) == 24  # every answer was committed first
        assert not any(result_dir(out, m, t).exists() for m in (BOT, BASELINE) for t in TRACKS)
        rerun_after_freeing(served, out, disk)
        assert served.replier.calls < served.asked  # only what was not committed is asked
        assert snapshot(out) == snapshot(served.clean)
        print(f"  after freeing space: the re-run asked {served.replier.calls} of "
              f"{served.asked} requests again; results and board equal the clean run's")  # fmt: skip
        yield JudgingFull(said, out / "cache.sqlite")
    finally:
        unmount(disk)


def test_a_full_disk_while_judging_stops_the_run_and_a_rerun_recovers(judging_full):
    assert "database or disk is full" in judging_full.said or "No space" in judging_full.said


def test_a_full_disk_while_judging_names_the_cache_file(judging_full):
    assert str(judging_full.cache) in judging_full.said


def test_a_full_disk_under_a_large_shard_stops_with_an_error(served, tmp_path):
    disk = mount(tmp_path / "disk")
    if disk.fake:
        unmount(disk)
        pytest.skip("a real full disk under the parquet writer needs a tmpfs (mount -t tmpfs)")
    try:
        out = disk.root / "out"
        config = write_config(tmp_path / "huge.yaml", served.base_url, bot=HUGE_BOT)
        stopped = run_until_full(served, out, disk, WRITE_MARGIN, config)
        print(f"\ndisk full under a 1.3 MB column: exit code {stopped.code}, the run said: "
              f"{stopped.said[:200]}; left behind: {leftovers(out)}")  # fmt: skip
        assert stopped.code == 2, "killed by a signal, not stopped by an error"
        assert str(result_dir(out, HUGE_BOT, "colours_pairwise")) in stopped.said
        assert leftovers(out) == []
    finally:
        unmount(disk)
