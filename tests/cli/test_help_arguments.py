"""Every argument of every `vlmscope` command explains itself in `--help`, and an option with a
default says what it is: a user reading the help must not have to read the code to learn what
happens when they leave a flag out."""

from __future__ import annotations

import argparse

from tests.cli.test_commands import commands
from vlmscope.cli import build_parser

_OWN_ACTIONS = (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction)


def _arguments() -> list[tuple[str, argparse.Action]]:
    """(command and argument name, action) of every argument a user can give."""
    found = [("vlmscope", build_parser())]
    found += [(name, parser) for name, parser, _ in commands(build_parser())]
    return [
        (f"{name} {'/'.join(action.option_strings) or action.dest}", action)
        for name, parser in found
        for action in parser._actions
        if not isinstance(action, _OWN_ACTIONS) and action.help != argparse.SUPPRESS
    ]


def _states_default(action: argparse.Action) -> bool:
    default = action.default
    if default is None or default is False or default == [] or not action.option_strings:
        return True
    text = action.help or ""
    return "default" in text.lower() or str(default) in text


def test_every_argument_has_help() -> None:
    assert [name for name, action in _arguments() if not (action.help or "").strip()] == []


def test_every_option_with_a_default_states_it() -> None:
    assert [name for name, action in _arguments() if not _states_default(action)] == []


def test_run_output_dir_says_where_results_go_without_it() -> None:
    helps = dict(_arguments())
    assert "default: the config's `output_dir`" in (helps["vlmscope run --output-dir"].help or "")
