"""Every command answers `--help`, an argument error and a config error without importing the
heavy libraries (seconds each): those load only when the work in hand needs them.

Each check runs in a fresh interpreter and reads its `sys.modules` after the command returned.
The commands and sub-commands are read from the real parser, so a command added later is
checked too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vlmscope.cli import _COMMAND_MODULES, build_parser

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("scipy.stats", "pandas", "torch", "transformers", "gradio", "datasets")

_PROBE = """
import contextlib, io, json, sys
from vlmscope.cli import main
{prelude}
heavy = {heavy!r}
steps = []
for argv in {runs!r}:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code
    loaded = sorted(name for name in heavy if name in sys.modules)
    steps.append({{"argv": argv, "code": code, "heavy": loaded}})
print(json.dumps(steps))
"""


def _steps(
    runs: list[list[str]], prelude: str = "", heavy: tuple[str, ...] = HEAVY
) -> list[dict[str, object]]:
    """Run each command line in turn in one fresh interpreter (after `prelude`); which of
    `heavy` each left loaded."""
    finished = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=heavy, runs=runs, prelude=prelude)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    steps: list[dict[str, object]] = json.loads(finished.stdout.splitlines()[-1])
    return steps


def _first_heavy(steps: list[dict[str, object]]) -> list[tuple[object, object]]:
    """The first command line after which a heavy library was loaded, with what it loaded."""
    return [(step["argv"], step["heavy"]) for step in steps if step["heavy"]][:1]


def _sub_commands(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
    """`path` and every sub-command path below it."""
    paths = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                paths += _sub_commands(child, [*path, name])
    return paths


def _command_tree(command: str) -> list[list[str]]:
    parser = build_parser([command])
    return [path for path in _sub_commands(parser, []) if path and path[0] == command]


def test_the_top_level_help_and_an_unknown_command_load_nothing_heavy() -> None:
    """Not even numpy or the config's pydantic: the whole help is argparse and our modules."""
    steps = _steps([["--help"], ["no-such-command"]], heavy=(*HEAVY, "numpy", "pydantic"))
    assert [step["code"] for step in steps] == [0, 2]
    assert _first_heavy(steps) == []


@pytest.mark.parametrize("command", sorted(_COMMAND_MODULES))
def test_every_help_and_argument_error_of_a_command_loads_nothing_heavy(command: str) -> None:
    tree = _command_tree(command)
    runs = [[*path, "--help"] for path in tree] + [[*path, "--no-such-flag"] for path in tree]
    steps = _steps(runs)
    assert {step["code"] for step in steps[: len(tree)]} == {0}
    assert {step["code"] for step in steps[len(tree) :]} == {2}
    assert _first_heavy(steps) == []


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


CONFIG = """\
output_dir: {out}
models:
  - backend: oracle
    name: oracle
tracks:
  - name: {track}
    options: {options}
"""


def test_config_errors_are_reported_before_anything_heavy_loads(tmp_path: Path) -> None:
    out = tmp_path / "out"
    good = _config(tmp_path, CONFIG.format(out=out, track="simplevqa", options="{}"))
    runs = [
        ["run", "--config", str(tmp_path / "missing.yaml")],
        ["run", "--config", _config(tmp_path, "models: [}\n")],
        ["run", "--config", good, "--tracks", "nope"],
        ["run", "--config", good, "--models", "nope"],
    ]
    for track in ("megabench", "simplevqa", "probench", "visionarena_bench", "no_such_track"):
        bad = tmp_path / f"{track}.yaml"
        bad.write_text(CONFIG.format(out=out, track=track, options="{no_such_option: 3}"))
        runs.append(["run", "--config", str(bad)])
    steps = _steps(runs)
    assert {step["code"] for step in steps} == {2}
    assert _first_heavy(steps) == []


def test_the_probe_sees_a_heavy_import() -> None:
    """The check itself can fail."""
    steps = _steps([["--help"]], prelude="import pandas")
    assert _first_heavy(steps) == [(["--help"], ["pandas"])]


def test_make_tiny_model_offers_the_configs_architectures() -> None:
    """Its choices come from the families' table (no pydantic to build the help)."""
    from vlmscope.models.tiny import TINY_ARCHS
    from vlmscope.models.tiny_families import FAMILIES

    assert tuple(FAMILIES) == TINY_ARCHS
