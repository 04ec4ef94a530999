"""Every command that runs lists `--debug` in its own `--help`: the errors say to use it, and a
user reads the command's help, not the top level's."""

from __future__ import annotations

import pytest

from tests.cli.test_commands import commands
from vlmscope.cli import build_parser, main


def test_every_runnable_command_lists_debug() -> None:
    leaves = [
        (name, parser)
        for name, parser, _ in commands(build_parser())
        if not parser._subparsers  # a group of commands runs nothing itself
    ]
    assert {"vlmscope run", "vlmscope demo", "vlmscope megabench score"} <= {n for n, _ in leaves}
    assert [n for n, p in leaves if "--debug" not in p.format_help()] == []


def test_debug_after_the_command_still_gives_the_traceback(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.yaml"
    assert main(["run", "--config", str(missing), "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().endswith(
        f"error: {missing}: No such file or directory"
    )
