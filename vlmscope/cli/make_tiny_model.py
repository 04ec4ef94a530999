"""`vlmscope make-tiny-model`: a random-weight model directory for tests and demos."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vlmscope.models.tiny_families import FAMILIES

DESCRIPTION = """\
Build a tiny random-weight vision-language model (tokenizer, processor with chat template,
config, weights) offline, for tests and demos of the pipeline. Its answers are noise: it is
NOT for evaluation. The same --seed gives the same files. Every family loads with
AutoProcessor + AutoModelForImageTextToText and has its own chat template (llava_thinking:
a thinking model's, honouring enable_thinking); all but llava, llava_thinking,
idefics3 and gemma3 need torchvision (their processors own a video processor).
--arch clip builds a tiny CLIP instead (AutoModel + AutoProcessor), the offline stand-in for
the embedding model of `vlmscope visionarena build-bench` and `topics`.
"""
CLIP = "clip"


def add_subparser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "make-tiny-model",
        help="build a random-weight model for tests and demos (not for evaluation)",
        description=DESCRIPTION,
    )
    parser.add_argument("dir", type=Path, help="directory to create (must not exist)")
    # the families' table, not `tiny.TINY_ARCHS`: the same names (a test says so) without the
    # config's pydantic, which building the help does not need
    parser.add_argument("--arch", required=True, choices=(*FAMILIES, CLIP), help="model family")
    parser.add_argument(
        "--seed", type=int, default=0, help="weight initialisation seed (default: 0)"
    )
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from vlmscope.models.tiny import ensure_tiny_model, needs_torchvision

    if args.dir.exists() and (not args.dir.is_dir() or any(args.dir.iterdir())):
        print(f"{args.dir}: already exists and is not an empty directory", file=sys.stderr)
        return 1
    if args.dir.exists():
        args.dir.rmdir()  # empty: the atomic rename puts a complete directory in its place
    if args.arch == CLIP:
        from vlmscope.models.tiny_clip import ensure_tiny_clip

        path = ensure_tiny_clip(args.dir, seed=args.seed)
        print(f"clip model (random weights, seed {args.seed}) written to {path}")
        return 0
    try:
        path = ensure_tiny_model(args.dir, args.arch, seed=args.seed)
    except ImportError as err:
        if not needs_torchvision(args.arch):
            raise
        reason = " ".join(str(err).split()).split(". ")[0] or type(err).__name__
        print(
            f"{args.arch} needs torchvision, which is not usable here ({reason}); "
            "scripts/install.sh installs a torch and torchvision that work together",
            file=sys.stderr,
        )
        return 1
    print(f"{args.arch} model (random weights, seed {args.seed}) written to {path}")
    return 0
