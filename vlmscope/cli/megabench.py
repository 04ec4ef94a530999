"""`vlmscope megabench ...`: MEGA-Bench commands.

Each sub-subcommand is added by a small `_add_<name>(sub)` function; add new ones to `_SUBCOMMANDS`.
Building the parser imports nothing heavy (no numpy, no metric libraries): each handler imports
what it needs when it runs (tests/megabench/test_cli_startup.py checks it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vlmscope.cli.megabench_bootstrap import add_bootstrap
from vlmscope.cli.megabench_rescore import add_score, add_summarize


def _handle_score_cases(args: argparse.Namespace) -> int:
    from vlmscope.tracks.megabench.score_cases import read_cases, score_cases, write_cases

    cases = read_cases(args.cases)
    results = score_cases(cases)
    write_cases(args.out, (case for case, _ in results))
    failed = [case["id"] for case, passed in results if not passed]
    for case_id in failed:
        print(f"FAILED {case_id}", file=sys.stderr)
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def _add_score_cases(sub: Any) -> None:
    parser = sub.add_parser(
        "score-cases",
        help="score golden cases from their inputs and compare with the official results",
        description="Compute every case of a MEGA-Bench golden-case JSONL from its inputs alone, "
        "write the cases back with an added `ours` field, and compare with `expected`.",
    )
    parser.add_argument(
        "cases",
        type=Path,
        metavar="CASES.jsonl",
        help="golden cases, one JSON object a line with its inputs and `expected` "
        "(e.g. tests/golden/megabench_metric_cases.jsonl)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="OUT.jsonl",
        help="where the cases are written back, each with our result as `ours`",
    )
    parser.set_defaults(func=_handle_score_cases)


# Sub-subcommands of `vlmscope megabench`; each function adds one parser to the group.
_SUBCOMMANDS = (_add_score_cases, add_score, add_summarize, add_bootstrap)


def add_subparser(subparsers: Any) -> None:
    """Add the `megabench` command group to the top-level `vlmscope` parser."""
    parser = subparsers.add_parser(
        "megabench",
        help="MEGA-Bench scoring tools",
        description="MEGA-Bench's scoring without a model: score responses another tool wrote "
        "into the official files, summarize task results (Core, Open, keyword and single-image "
        "breakdowns), bootstrap the Core score's spread, and check the metrics against the "
        "golden cases.",
    )
    sub = parser.add_subparsers(dest="megabench_command", required=True, metavar="SUBCOMMAND")
    for add in _SUBCOMMANDS:
        add(sub)


def main(argv: list[str] | None = None) -> int:
    """Run `vlmscope megabench ...` without the top-level command (for tests and scripts)."""
    parser = argparse.ArgumentParser(prog="vlmscope")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["megabench", *(argv or [])])
    code: int = args.func(args)
    return code
