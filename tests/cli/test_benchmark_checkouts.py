"""A benchmark given a folder that is not the reference checkout says so in one usage error,
when the command line is read (`benchmarks/checkouts.py`), instead of a traceback later."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from checkouts import FASTCHAT, MEGABENCH, checkout  # noqa: E402


def test_a_folder_with_the_marked_file_is_taken_as_given(tmp_path: Path) -> None:
    (tmp_path / "megabench").mkdir()
    (tmp_path / "megabench" / "evaluation_processor.py").write_text("")
    parse = checkout("TIGER-AI-Lab/MEGA-Bench", MEGABENCH)
    assert parse(str(tmp_path)) == tmp_path
    assert parse(str(tmp_path / "megabench")) == tmp_path / "megabench"


def test_a_folder_without_it_is_an_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as raised:
        checkout("lm-sys/FastChat", FASTCHAT)(str(tmp_path))
    assert str(raised.value) == (
        f"{tmp_path} holds no fastchat/serve/monitor/elo_analysis.py: "
        "give a lm-sys/FastChat checkout"
    )


def test_a_script_stops_at_the_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "ratings.py"), "--fastchat", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"ratings.py: error: argument --fastchat: {tmp_path} holds no "
        "fastchat/serve/monitor/elo_analysis.py: give a lm-sys/FastChat checkout"
    )
