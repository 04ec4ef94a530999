"""The benchmark scripts' `--help` states every option's default (`benchmarks/help_defaults.py`),
so what a bare run measures, and how to make it smaller, is read off the help."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from help_defaults import show_defaults  # noqa: E402


def test_each_default_is_stated_once_and_lists_as_typed() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 30000])
    parser.add_argument("--share", type=float, default=0.5, help="share of queries")
    parser.add_argument("--rounds", type=int, default=100, help="rounds (default 100; 0: none)")
    parser.add_argument("--fastchat", help="a checkout")
    parser.add_argument("--quick", action="store_true", help="smaller")
    helps = {a.dest: a.help for a in show_defaults(parser)._actions}
    assert helps["sizes"] == "default: 3000 30000"
    assert helps["share"] == "share of queries (default: 0.5)"
    assert helps["rounds"] == "rounds (default 100; 0: none)"
    assert (helps["fastchat"], helps["quick"], helps["out"]) == ("a checkout", "smaller", None)
    text = parser.format_help()
    assert "default: 3000 30000" in text and "(default: 0.5)" in text


def _help_of(script: str) -> str:
    """What `python benchmarks/<script> --help` prints; it must exit 0."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_script_help_shows_its_defaults() -> None:
    assert "--seed SEED      default: 2024" in _help_of("make_battles.py")


def test_the_reference_runners_print_their_usage_on_help() -> None:
    usage = "python benchmarks/megabench_official.py MEGABENCH_DIR"
    assert usage in _help_of("megabench_official.py")
