"""`vlmscope make-tiny-model`: a random-weight model directory for tests and demos."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vlmscope.models.tiny import TINY_ARCHS

DESCRIPTION = """\
Build a tiny random-weight vision-language model (tokenizer, processor with chat template,
config, weights) offline, for tests and demos of the pipeline. Its answers are noise: it is
NOT for evaluation. The same --seed gives the same files.
"""


def add_subparser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "make-tiny-model",
        help="build a random-weight model for tests and demos (not for evaluation)",
        description=DESCRIPTION,
    )
    parser.add_argument("dir", type=Path, help="directory to create (must not exist)")
    parser.add_argument("--arch", required=True, choices=TINY_ARCHS, help="model family")
    parser.add_argument("--seed", type=int, default=0, help="weight initialisation seed")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from vlmscope.models.tiny import ensure_tiny_model

    if args.dir.exists() and (not args.dir.is_dir() or any(args.dir.iterdir())):
        print(f"{args.dir}: already exists and is not an empty directory", file=sys.stderr)
        return 1
    if args.dir.exists():
        args.dir.rmdir()  # empty: the atomic rename puts a complete directory in its place
    path = ensure_tiny_model(args.dir, args.arch, seed=args.seed)
    print(f"{args.arch} model (random weights, seed {args.seed}) written to {path}")
    return 0
