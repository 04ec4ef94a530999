"""`vlmscope demo`: the README's demo, run from anywhere vlmscope is installed.

It is `vlmscope run --config configs/demo.yaml` with the config shipped in the package
(`vlmscope.shipped_configs`), so a wheel user needs no checkout: a tiny random-weight model
(built offline on first use, in `.cache/` of the current folder) and the oracle answer every
track's shipped sample, and the results land in `results/demo/` of the current folder.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from vlmscope.cli.run import add_arguments, handle
from vlmscope.shipped_configs import shipped_config

DEMO = "demo"
DESCRIPTION = """\
Run the demo: a tiny random-weight model (built offline on first use, in .cache/) and the
oracle (which answers with the references) on the shipped sample of every track, judged by
offline stand-ins, so the whole pipeline runs in about a minute with no network and no GPU.
The numbers check the pipeline; they do not rank models (the run prints what each one means).
Results go to results/demo/ in the current folder; then `vlmscope space results/demo` shows
them. Any option of `vlmscope run` may be added (e.g. --tracks megabench --limit 1).
"""


def add_subparser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo",
        help="run the demo (every track, offline) from anywhere",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser, config=False)
    parser.set_defaults(func=handle_demo)


def handle_demo(args: argparse.Namespace) -> int:
    args.config = shipped_config(DEMO)
    where = args.output_dir or "results/demo"
    tracks = f"tracks {args.tracks}" if args.tracks else "every track"
    print(f"vlmscope demo: the shipped {DEMO}.yaml, {tracks}, results in {where}/", file=sys.stderr)
    return handle(args)
