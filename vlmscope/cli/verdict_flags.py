"""Command-line flags shared by the commands that turn judge verdicts into boards."""

from __future__ import annotations

import argparse


def add_verdict_weight_flags(parser: argparse.ArgumentParser) -> None:
    """How verdicts become battle rows: `--weight` and `--first-game-only` (shared with the
    ProBench agreement command, which fits the same boards)."""
    parser.add_argument(
        "--weight", type=int, default=3, help="rows per strong verdict such as [[A>>B]] (default 3)"
    )
    parser.add_argument(
        "--first-game-only",
        action="store_true",
        help="use only the game that shows the baseline as Assistant A",
    )
