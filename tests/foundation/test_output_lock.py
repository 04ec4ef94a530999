"""One writer per output folder: a second run stops naming the first; a killed run's lock is
taken over."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import run_eval
from vlmscope.config import parse_config
from vlmscope.runner.loop import run
from vlmscope.runner.output_lock import LOCK_NAME, OutputLocked

ROOT = Path(__file__).resolve().parents[2]
HOLD = (
    "import sys, time\n"
    "from vlmscope.runner.output_lock import output_lock\n"
    "with output_lock(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(120)\n"
)


def _config(out: Path):
    return parse_config(
        {
            "output_dir": str(out),
            "models": [{"backend": "oracle"}],
            "tracks": [{"name": "colours", "options": {"n_samples": 4}}],
        }
    )


@pytest.fixture
def holder(tmp_path):
    """Another process holding the output folder's lock, as a run in progress would."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    yield out, proc
    proc.kill()
    proc.wait(timeout=10)


def test_a_second_run_stops_naming_the_holder(holder, capsys):
    out, proc = holder
    with pytest.raises(OutputLocked) as err:
        run(_config(out))
    assert f"{out} is being written by another vlmscope run (pid {proc.pid} on " in str(err.value)
    assert not (out / "oracle").exists() and not (out / "cache.sqlite").exists()

    config_file = out.parent / "run.yaml"
    config_file.write_text(
        f"output_dir: {out}\nmodels: [{{backend: oracle}}]\ntracks: [{{name: colours}}]\n"
    )
    assert run_eval.main(["--config", str(config_file)]) == 2
    assert f"pid {proc.pid}" in capsys.readouterr().err


def test_a_killed_holders_lock_is_taken_over_and_said(holder, caplog):
    out, proc = holder
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    with caplog.at_level(logging.WARNING, logger="vlmscope.runner.output_lock"):
        report = run(_config(out))
    assert report.tracks[0].generated == 4
    assert f"resuming {out}: the run before (pid {proc.pid} on" in caplog.text
    assert "stopped without finishing" in caplog.text
    assert not (out / LOCK_NAME).exists()  # a finished run leaves no lock file


def test_runs_one_after_another_never_conflict(tmp_path, caplog):
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING, logger="vlmscope.runner.output_lock"):
        run(_config(out))
        assert run(_config(out)).tracks[0].cached == 4
    assert "resuming" not in caplog.text
    assert not (out / LOCK_NAME).exists()
