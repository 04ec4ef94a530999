"""Ctrl-C on `vlmscope run`: one line saying what is kept and how to resume, no traceback; the
run started again says what it resumes, reuses what was answered, and leaves no lock file."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml

from tests.servers import OpenAIStub
from vlmscope.runner.output_lock import LOCK_NAME

ROOT = Path(__file__).resolve().parents[2]
N_SAMPLES = 24


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "plugins")]),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }


def _ctrl_c_as_a_terminal_has_it() -> None:
    """In the child: SIGINT raises KeyboardInterrupt, as in a terminal, even when these tests
    run in a background job (a shell starts those with SIGINT ignored, and Python keeps that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _answered(cache: Path) -> int:
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_ctrl_c_keeps_the_answers_and_the_next_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "results"
    with OpenAIStub(latency_s=0.25) as stub:
        config = tmp_path / "run.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "output_dir": str(out),
                    "models": [
                        {
                            "backend": "openai",
                            "name": "slow",
                            "base_url": stub.base_url,
                            "model": "m",
                            "concurrency": 1,
                        }
                    ],  # fmt: skip
                    "tracks": [{"name": "colours", "options": {"n_samples": N_SAMPLES}}],
                }
            )
        )
        command = [sys.executable, "-m", "vlmscope", "run", "--config", str(config)]
        proc = subprocess.Popen(
            command,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ctrl_c_as_a_terminal_has_it,
        )
        deadline = time.monotonic() + 240
        while _answered(out / "cache.sqlite") < 3:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert "Traceback" not in err
        last = [line for line in err.replace("\r", "\n").splitlines() if line.strip()][-1]
        assert last == (
            "stopped (Ctrl-C): every answer and judgment finished so far is kept in "
            f"{out / 'cache.sqlite'}; run the same command again to resume"
        )
        kept = _answered(out / "cache.sqlite")
        assert 3 <= kept < N_SAMPLES
        note = json.loads((out / LOCK_NAME).read_text())
        assert note["interrupted_at"] and note["pid"] == proc.pid

        again = subprocess.run(
            command, env=_env(), capture_output=True, text=True, timeout=300, check=False
        )
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming {out}: the run before (pid {proc.pid} on " in again.stderr
    assert "was stopped with Ctrl-C at" in again.stderr
    report = json.loads((out / "run_report.json").read_text())["tracks"][0]
    assert report["cached"] >= kept and report["cached"] + report["generated"] == N_SAMPLES
    assert not (out / LOCK_NAME).exists()
