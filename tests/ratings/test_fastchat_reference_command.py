"""`benchmarks/fastchat_reference.py` explains itself: `--help` prints how to call it, and a
folder without FastChat is named in one line, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fastchat_reference.py"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_help_prints_the_usage(tmp_path: Path) -> None:
    done = _run("--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "python benchmarks/fastchat_reference.py FASTCHAT_DIR" in done.stdout


def test_a_folder_without_fastchat_is_named_in_one_line(tmp_path: Path) -> None:
    done = _run(str(tmp_path / "nowhere"), cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nowhere'} does not hold fastchat/serve/monitor/elo_analysis.py: "
        "give a FastChat checkout as the first argument"
    ]
