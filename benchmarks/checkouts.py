"""The reference checkouts the benchmark scripts run beside ours (`--fastchat DIR`,
`--official DIR`, `--arena-hard DIR`), checked when the command line is read: a wrong folder
is one usage error naming the file it lacks, before any workload is built, not a traceback
minutes in."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

FASTCHAT = ("fastchat/serve/monitor/elo_analysis.py",)
"""lm-sys/FastChat: the folder that holds the `fastchat` package."""
MEGABENCH = ("megabench/evaluation_processor.py", "evaluation_processor.py")
"""TIGER-AI-Lab/MEGA-Bench: the clone, or its `megabench/` folder."""
ARENA_HARD_V2 = ("utils/math_utils.py",)
"""lmarena/arena-hard-auto v2: the folder that holds `show_result.py` and its `utils/` package
(v0.1 has `utils_math.py` instead)."""


def checkout(name: str, marks: tuple[str, ...]) -> Callable[[str], Path]:
    """An argparse `type`: a folder holding one of `marks`, else an error saying what to give."""

    def parse(text: str) -> Path:
        folder = Path(text)
        if any((folder / mark).is_file() for mark in marks):
            return folder
        raise argparse.ArgumentTypeError(
            f"{text} holds no {' or '.join(marks)}: give a {name} checkout"
        )

    return parse
