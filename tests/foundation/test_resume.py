"""Killing a run at any moment loses nothing and duplicates nothing; N processes share the work.

Runs `run_eval.py` in subprocesses with a tiny random-weight model, as a user would.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from vlmscope.hub_export import load_folder
from vlmscope.runner.results import result_dir

ROOT = Path(__file__).parents[2]
N_SAMPLES = 20


@pytest.fixture(scope="module")
def tiny_llava(tmp_path_factory):
    from vlmscope.models.tiny import ensure_tiny_model

    return ensure_tiny_model(tmp_path_factory.mktemp("tiny") / "llava", "llava")


@pytest.fixture(scope="module")
def config(tmp_path_factory, tiny_llava):
    return write_config(tmp_path_factory.mktemp("cfg"), tiny_llava)


@pytest.fixture(scope="module")
def reference(tmp_path_factory, config):
    """An uninterrupted single-process run: what every other run must reproduce."""
    out = tmp_path_factory.mktemp("uninterrupted")
    run_to_end(config, out)
    return out


def cache_keys(out):
    with sqlite3.connect(out / "cache.sqlite") as conn:
        return [k for (k,) in conn.execute("SELECT key FROM responses")]


def write_config(tmp_path, model_dir, name="cfg.yaml"):
    config = {
        "models": [
            {
                "backend": "hf",
                "name": "tiny",
                "path": str(model_dir),
                "batch_size": 2,
                "max_new_tokens": 6,
            }
        ],
        "tracks": [
            {
                "name": "colours",
                "options": {"n_samples": N_SAMPLES, "max_new_tokens": 6},
            }
        ],
    }
    path = tmp_path / name
    path.write_text(yaml.safe_dump(config))
    return path


def env():
    return {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests' / 'plugins'}",
    }


def cached_rows(out):
    path = out / "cache.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as conn:
            return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def run_to_end(config, out):
    launch(
        [
            sys.executable,
            str(ROOT / "run_eval.py"),
            "--config",
            str(config),
            "--output-dir",
            str(out),
        ]
    )


def launch(cmd):
    """Run a command to its end; on failure show what it printed, not just its exit code."""
    done = subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]


def run_and_kill(config, out, *, after_rows=None, after_s=None):
    """Start a run and SIGKILL it once the cache holds `after_rows` rows or after `after_s` s."""
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "run_eval.py"),
            "--config",
            str(config),
            "--output-dir",
            str(out),
        ],
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    start = time.monotonic()
    while proc.poll() is None and time.monotonic() - start < 120:
        if (after_rows is not None and cached_rows(out) >= after_rows) or (
            after_s is not None and time.monotonic() - start >= after_s
        ):
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait(30)
    return proc.returncode


def details(out):
    rows = load_folder(result_dir(out, "tiny", "colours"), "details")
    return {r["sample_id"]: (r["response"], r["scores"], r["status"]) for r in rows}


def test_resume_after_sigkill_gives_identical_results(tmp_path, config, reference):
    expected = details(reference)
    assert len(expected) == N_SAMPLES

    # One kill in the middle of generation, on the hf backend's real path; killing in every
    # phase, again and again, is the fault campaign's (tests/faults/test_sigkill_campaign.py).
    out = tmp_path / "killed"
    code = run_and_kill(config, out, after_rows=N_SAMPLES // 2)
    assert code in (-signal.SIGKILL, 0)
    assert N_SAMPLES // 2 <= cached_rows(out) <= N_SAMPLES
    run_to_end(config, out)

    assert details(out) == expected
    keys = cache_keys(out)  # exactly one stored result per distinct request
    assert len(keys) == len(set(keys)) and sorted(keys) == sorted(cache_keys(reference))


def test_two_processes_split_the_work_and_match_one(tmp_path, config, reference):
    double = tmp_path / "two"
    cmd = [
        "accelerate",
        "launch",
        "--multi_gpu",
        "--num_processes",
        "2",
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        str(29500 + os.getpid() % 1000),
        str(ROOT / "run_eval.py"),
        "--config",
        str(config),
        "--output-dir",
        str(double),
    ]
    launch(cmd)
    assert details(double) == details(reference)
    report = json.loads((double / "run_report.json").read_text())["tracks"][0]
    assert report["by_rank"] == {"0": N_SAMPLES // 2, "1": N_SAMPLES // 2}  # each did half


def test_two_processes_with_an_instant_backend_lose_nothing(tmp_path):
    """With the oracle one process can finish before the other has read the cache; both must
    still split the same pending list (a race that once left requests unanswered)."""
    out = tmp_path / "oracle"
    cmd = ["accelerate", "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
           "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(30500 + os.getpid() % 1000),
           str(ROOT / "run_eval.py"), "--config", str(ROOT / "tests" / "configs" / "colours_oracle.yaml"),
           "--output-dir", str(out)]  # fmt: skip
    launch(cmd)
    report = json.loads((out / "run_report.json").read_text())["tracks"][0]
    assert report["by_rank"] == {"0": 12, "1": 12} and report["summary"]["accuracy"] == 1.0
