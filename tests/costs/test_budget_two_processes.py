"""`--budget USD` under `accelerate launch --num_processes 2`: the two processes together stay
within the budget, the run stops with the budget's message (once), and a resume asks the rest.

The model is the usage-reporting stand-in served by this test's process; both launched
processes ask it. The budget is half of what an unbudgeted run's generation cost, so the
stopped run must leave work undone, and stopping then resuming must ask every conversation the
unbudgeted run asked, each once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.costs.runs import (
    api_model,
    counting_stub,
    run_report,
    vlmscope_run,
    write_config,
    write_pricing,
)

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ("--output-tokens", "20", "--chars-per-token", "6", "--image-tokens", "16")
"""The estimate set to the stand-in, as in `test_budget.py`."""
LIMIT = "4"

pytestmark = pytest.mark.skipif(
    shutil.which("accelerate") is None, reason="accelerate's launcher is not installed"
)


def two_track_config(stub: Any, out: Path, pricing: Path) -> dict[str, Any]:
    """Rule- and match-scored tracks only: every request is a generation request."""
    return {
        "output_dir": str(out),
        "pricing": str(pricing),
        "models": [api_model(stub, "stub-model")],
        "tracks": [
            {"name": "megabench", "subset": "core"},
            {"name": "simplevqa", "options": {"grader": "offline_match", "bootstrap_rounds": 20}},
        ],
    }


def launch_two(config: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    port = 32500 + (os.getpid() + len(flags)) % 1000
    return subprocess.run(
        ["accelerate", "launch", "-q", "--multi_gpu", "--num_processes", "2",
         "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
         "--main_process_port", str(port), str(ROOT / "run_eval.py"), "--config", str(config),
         "--limit", LIMIT, *flags],
        capture_output=True, text=True, env=env, cwd=config.parent, timeout=240,
    )  # fmt: skip


def test_two_processes_stay_within_the_budget_and_resume_asking_nothing_twice(
    tmp_path: Path,
) -> None:
    reference_stub, _ = counting_stub()
    with reference_stub:
        raw = two_track_config(reference_stub, tmp_path / "ref", write_pricing(tmp_path / "p.yaml"))
        assert vlmscope_run(write_config(tmp_path, raw, "ref"), limit=int(LIMIT)) == 0
    generate_cost = float(
        run_report(tmp_path / "ref")["ledger"]["by_phase"]["generate"]["spent_usd"]
    )
    budget = generate_cost / 2

    stub, counting = counting_stub()
    with stub:
        raw = two_track_config(stub, tmp_path / "out", write_pricing(tmp_path / "p.yaml"))
        config = write_config(tmp_path, raw)
        stopped = launch_two(config, "--budget", str(budget), *EXPECTED)
        asked_before_resume = len(stub.calls)
        spent = sum(u["prompt_tokens"] * 2.0 + u["completion_tokens"] * 8.0 for u in counting.usage)
        resumed = launch_two(config)
    assert stopped.returncode != 0, stopped.stderr[-3000:]
    lines = stopped.stderr.splitlines()
    budget_lines = [line for line in lines if line.startswith("budget reached")]
    assert len(budget_lines) == 1, stopped.stderr[-3000:]
    assert f"of {budget:.4f} USD" in budget_lines[0] and "larger --budget" in budget_lines[0]
    assert 0 < asked_before_resume < len(reference_stub.calls)
    assert 0 < spent / 1e6 <= budget * 1.1  # both processes together, within the budget
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert all(call.attempt == 1 for call in stub.calls)  # nothing asked twice
    assert len(stub.calls) == len(reference_stub.calls)
