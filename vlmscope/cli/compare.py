"""`vlmscope compare RESULTS A B [C ...]`: is the difference between models real, track by track.

Reads a results folder (any folder the Space reads: a run's output, several runs side by side,
boards of the ratings commands) and compares the named models on every track they share, each
the way its benchmark aggregates: paired on the items both answered, with 95% intervals and
p-values. Two models: every number of every track on the terminal. More: the pairwise matrix
of each track's first headline number; `--out` has every pair in full.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Compare models on the same items, track by track, with paired 95% intervals:
  MEGA-Bench   overall, Core, Open and every keyword: difference A - B, a two-stage bootstrap
               (tasks within the macro average, queries within tasks), p-value; the tasks that
               move most, both ways; the single-image overall, Core and Open by the same
               bootstrap over the single-image tasks alone (n/a, with the reason, for summaries
               without their intervals or models sharing no single-image task of that set)
  SimpleVQA    CO, IN, NA, CGA, F: paired bootstrap differences; McNemar's exact test on
               correct / not correct; per task category and language
  ProBench,    P(A beats B) from the joint Bradley-Terry board, over the board's own bootstrap
  VisionArena-Bench  rounds; the prompts where the two models' verdicts disagree
  VisionArena  battles: A's win share in their direct battles, and the board's forecast
Items only some models have are left out and listed. Several models: the pairwise matrix.
"""
EPILOG = """\
examples:
  vlmscope compare results/demo oracle tiny-llava
  vlmscope compare results/demo oracle tiny-llava --track megabench --markdown card.md
  vlmscope compare results/ model-a model-b model-c --out comparison.json
"""


def add_subparser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare models on the same items: paired differences with intervals, per track",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "results", type=Path, help="a results folder (a run's output_dir, or several)"
    )
    parser.add_argument("models", nargs="+", metavar="MODEL", help="two or more model names")
    parser.add_argument(
        "--track",
        action="append",
        dest="tracks",
        metavar="TRACK",
        help="compare only this track (repeat for several; default: every track)",
    )
    parser.add_argument("--out", type=Path, help="also write the whole comparison as JSON here")
    parser.add_argument(
        "--markdown",
        nargs="?",
        const="-",
        metavar="FILE",
        help="Markdown for a model card: to FILE, or instead of the table when no FILE is given",
    )
    parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstraps (default 0)")
    parser.set_defaults(func=handle_compare)


def handle_compare(args: argparse.Namespace) -> int:
    import json

    from vlmscope.atomic_files import write_text_atomic
    from vlmscope.leaderboard.compare.render import markdown_report, text_report
    from vlmscope.leaderboard.compare.run import UnknownModel, compare_models
    from vlmscope.leaderboard.load import ResultsLocation
    from vlmscope.leaderboard.result_store import ResultStore

    if len(args.models) < 2:
        print("error: vlmscope compare: name at least two models", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("error: vlmscope compare: --rounds must be at least 1", file=sys.stderr)
        return 2
    if not args.results.is_dir():
        print(f"error: vlmscope compare: {args.results}: no such results folder", file=sys.stderr)
        return 2
    store = ResultStore(ResultsLocation.local(args.results))
    for problem in store.problems:
        print(f"skipped {problem.folder}: {problem.error}", file=sys.stderr)
    tracks = list(args.tracks or store.tracks())

    def progress(track: str) -> None:
        done = tracks.index(track) if track in tracks else 0
        print(f"[{done + 1}/{len(tracks)}] comparing {track} ...", file=sys.stderr, flush=True)

    try:
        report = compare_models(
            store,
            args.models,
            tracks=args.tracks,
            rounds=args.rounds,
            seed=args.seed,
            progress=progress,
        )
    except (UnknownModel, ValueError) as error:
        print(f"error: vlmscope compare: {error}", file=sys.stderr)
        return 2
    if args.markdown == "-":
        print(markdown_report(report), end="")
    else:
        print(text_report(report), end="")
        if args.markdown:
            write_text_atomic(Path(args.markdown), markdown_report(report))
    if args.out is not None:
        write_text_atomic(
            args.out, json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
        )
    return 0
