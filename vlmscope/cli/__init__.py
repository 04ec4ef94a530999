"""The `vlmscope` command. Each feature adds its own subcommand.

A package in the top layer (beside `runner`), so subcommands that write result datasets, such as
`vlmscope ratings` (`vlmscope.cli.ratings`), can live here rather than in the layer they call.
"""

from __future__ import annotations

import argparse
import importlib

# Modules that provide `add_subparser(subparsers)`; imported only to build the parser.
_SUBCOMMANDS = (
    "vlmscope.runner.cli",
    "vlmscope.models.cli",
    "vlmscope.tracks.megabench.cli",
    "vlmscope.cli.ratings",
    "vlmscope.cache_salvage",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vlmscope",
        description="Evaluate vision-language models on MEGA-Bench, ProBench, SimpleVQA and VisionArena.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in _SUBCOMMANDS:
        importlib.import_module(module_name).add_subparser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code
