"""The shipped all-tracks demo, run once per test session and shared by every test that reads it.

It is the slowest thing several tests need (a tiny model built and run on every track, judged
and rated): the Space's demo pages, the README's snippets, and the SimpleVQA and
VisionArena-Bench checks of the demo read the same results, so they share one run
(`tests/conftest.py`, fixture `demo_run`). The results are only read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from vlmscope.config import parse_config
from vlmscope.runner.loop import RunReport, run
from vlmscope.shipped_configs import shipped_config


@dataclass(frozen=True)
class DemoRun:
    out: Path
    """The results folder (what `vlmscope demo` writes to `results/demo`)."""
    report: RunReport
    raw: dict
    """The config as run."""


def run_demo(folder: Path) -> DemoRun:
    """The shipped demo config, run as `vlmscope demo` runs it, into `folder`."""
    raw = yaml.safe_load(shipped_config("demo").read_text(encoding="utf-8"))
    raw["output_dir"] = str(folder / "results" / "demo")
    for entry in [*raw["models"], *(t.get("judge") or {} for t in raw["tracks"])]:
        if entry.get("tiny_arch"):
            entry["path"] = str(folder / "tiny-llava")
    report = run(parse_config(raw))
    return DemoRun(Path(raw["output_dir"]), report, raw)
