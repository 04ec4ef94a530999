"""Bad input under `accelerate launch --num_processes 2`: one `error:` line, a failed launch.

Every process reads the same config and data and meets the same error; the line is printed
once (by the first process to end on it, `vlmscope.launch_output`), no process prints a
traceback, the launch exits non-zero, and nothing waits at a barrier. The launcher's own failure
report (torch's `ChildFailedError`) follows; it is not ours and names the exit status 2.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "vlmscope" / "samples" / "simplevqa" / "test.parquet"

pytestmark = pytest.mark.skipif(
    shutil.which("accelerate") is None, reason="accelerate's launcher is not installed"
)


def launch_two(
    config: Path, script: Path = ROOT / "run_eval.py"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    port = 31500 + (os.getpid() + len(str(config))) % 1000
    return subprocess.run(
        ["accelerate", "launch", "-q", "--multi_gpu", "--num_processes", "2",
         "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
         "--main_process_port", str(port), str(script), "--config", str(config)],
        capture_output=True, text=True, env=env, cwd=config.parent, timeout=120,
    )  # fmt: skip


def ours(stderr: str) -> list[str]:
    """The error lines, and any traceback frame from our code (there must be none)."""
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("error:")
        or ("File " in line and ("vlmscope" in line or "run_eval" in line))
    ]


def simplevqa_config(tmp_path: Path, data_dir: Path) -> Path:
    config = tmp_path / "run.yaml"
    config.write_text(
        "models: [{backend: oracle}]\n"
        f"tracks: [{{name: simplevqa, data_dir: {data_dir}, options: {{grader: offline_match}}}}]\n"
        f"output_dir: {tmp_path / 'out'}\n",
        encoding="utf-8",
    )
    return config


def test_a_config_error_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("models: [{backend: oracle}]\ntracks: [{name: simplevqa}]\nlimit: true\n")
    done = launch_two(config)
    assert done.returncode != 0
    assert ours(done.stderr) == [f"error: {config}: limit: expected a number, got True"]
    assert "exitcode  : 2" in done.stderr  # the launcher names our status as the root cause


@pytest.mark.parametrize("folder", ["absent", "empty"])
def test_a_missing_or_empty_data_folder_is_one_line(tmp_path: Path, folder: str) -> None:
    data = tmp_path / folder
    reason = " is not a directory"
    if folder == "empty":
        data.mkdir()
        reason = ": expected test.parquet or exactly one .json/.jsonl file, found []"
    config = simplevqa_config(tmp_path, data)
    done = launch_two(config)
    assert done.returncode != 0
    assert ours(done.stderr) == [f"error: {config}: tracks.0 (simplevqa): data_dir {data}{reason}"]
    assert not (tmp_path / "out").exists()


def test_a_malformed_row_is_one_line_naming_file_row_and_field(tmp_path: Path) -> None:
    table = pq.read_table(SAMPLE)
    questions = table.column("question").to_pylist()
    bad_id = table.column("data_id").to_pylist()[3]
    questions[3] = None
    data = tmp_path / "data"
    data.mkdir()
    column = table.schema.get_field_index("question")
    pq.write_table(
        table.set_column(column, "question", pa.array(questions, pa.string())),
        data / "test.parquet",
    )
    config = simplevqa_config(tmp_path, data)
    done = launch_two(config)
    assert done.returncode != 0
    assert ours(done.stderr) == [
        f"error: {config}: tracks.0 (simplevqa): test.parquet, data_id {bad_id}: "
        "field 'question' is empty"
    ]


def test_the_same_config_under_plain_python_prints_the_same_line(tmp_path: Path) -> None:
    """The line under the launcher is the single-process line, not a launcher's variant."""
    config = tmp_path / "run.yaml"
    config.write_text("models: [{backend: oracle}]\ntracks: [{name: simplevqa}]\nlimit: true\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("WORLD_SIZE", None)
    done = subprocess.run(
        [sys.executable, str(ROOT / "run_eval.py"), "--config", str(config)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"error: {config}: limit: expected a number, got True\n"


ONE_RANK_FAILS = """
import os, sys, time
from vlmscope.input_errors import guarded

def main() -> int:
    if os.environ["RANK"] == "1":  # a bad row in rank 1's share of the requests
        raise ValueError("rows.jsonl, line 7: field 'answer' is empty")
    time.sleep(60)  # rank 0 waits at the next barrier; the launcher stops it
    return 0

sys.exit(guarded(main))
"""


def test_an_error_only_one_process_meets_is_printed_and_ends_the_launch(tmp_path: Path) -> None:
    """Printed by the process that met it (rank 1), in the launcher's real layout; the other
    process, waiting at a barrier, is stopped rather than left hanging."""
    script = tmp_path / "one_rank_fails.py"
    script.write_text(ONE_RANK_FAILS, encoding="utf-8")
    done = launch_two(tmp_path / "unused.yaml", script)
    assert done.returncode != 0
    assert ours(done.stderr) == ["error: rows.jsonl, line 7: field 'answer' is empty"]
