"""The `vlmscope` command. Each feature adds its own subcommand.

The top layer of the package: the commands live here (one module per command, helpers beside
it), so a command may call any layer below and no layer below knows the command line; only
`vlmscope cache` is added by `vlmscope.cache_salvage`, beside the cache it repairs.

Start-up stays cheap: `vlmscope COMMAND ...` imports only the module that adds COMMAND (see
`_COMMAND_MODULES`), so e.g. `vlmscope megabench score` never imports the ratings engine (scipy)
or the runner's configuration (pydantic). `vlmscope --help` or a mistyped command builds the
whole parser.

Every command ends on input it cannot use the same way (`vlmscope.input_errors.guarded`): one
`error:` line, exit status 2, no traceback; `--debug`, anywhere on the line, adds the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from vlmscope import __version__
from vlmscope.input_errors import DEBUG_FLAG, DEBUG_HELP, guarded, take_debug_flag

# The top-level command each module adds with its `add_subparser(subparsers)` (checked by
# tests/megabench/test_cli_startup.py); a module is imported only to build the parser.
_COMMAND_MODULES = {
    "run": "vlmscope.cli.run",
    "rejudge": "vlmscope.cli.rejudge",
    "make-tiny-model": "vlmscope.cli.make_tiny_model",
    "megabench": "vlmscope.cli.megabench",
    "ratings": "vlmscope.cli.ratings",
    "probench": "vlmscope.cli.probench",
    "visionarena": "vlmscope.cli.visionarena",
    "arena": "vlmscope.cli.arena",
    "compare": "vlmscope.cli.compare",
    "cache": "vlmscope.cache_salvage",
    "demo": "vlmscope.cli.demo",
    "space": "vlmscope.cli.space.command",
    "publish": "vlmscope.cli.publish",
}
_SUBCOMMANDS = tuple(_COMMAND_MODULES.values())


def _modules_for(argv: Sequence[str]) -> tuple[str, ...]:
    """Only the module of the command named first in `argv`, when it is known; none for
    `--version`; else all."""
    if argv and argv[0] == "--version":
        return ()
    module = _COMMAND_MODULES.get(argv[0], "") if argv else ""
    return (module,) if module in _SUBCOMMANDS else _SUBCOMMANDS


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The `vlmscope` parser; given the command line `argv`, with only the subcommand it names."""
    parser = argparse.ArgumentParser(
        prog="vlmscope",
        description="Evaluate vision-language models on MEGA-Bench, ProBench, SimpleVQA and VisionArena.",
    )
    parser.add_argument("--version", action="version", version=f"vlmscope {__version__}")
    parser.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in _SUBCOMMANDS if argv is None else _modules_for(argv):
        importlib.import_module(module_name).add_subparser(subparsers)
    _list_debug_flag(parser)
    return parser


def _list_debug_flag(parser: argparse.ArgumentParser) -> None:
    """List `--debug` in the `--help` of every command that runs, where its user looks for it.
    `main` takes the flag off the line before parsing (it may stand anywhere), so this entry is
    never what sets it."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for group in groups:
        for command in group.choices.values():
            _list_debug_flag(command)
    if not groups and DEBUG_FLAG not in parser._option_string_actions:
        parser.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)


def main(argv: list[str] | None = None) -> int:
    arguments, debug = take_debug_flag(list(sys.argv[1:] if argv is None else argv))

    def command() -> int:
        args = build_parser(arguments).parse_args(arguments)
        code: int = args.func(args)
        return code

    return guarded(command, debug=debug)
