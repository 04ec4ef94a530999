"""`vlmscope megabench ...` starts cheaply: building its parser imports no heavy library, and the
top-level `vlmscope` command imports only the module of the command it runs."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import vlmscope.cli as top_level

REPO = Path(__file__).resolve().parents[2]
HEAVY = (
    "torch",
    "transformers",
    "datasets",
    "evaluate",
    "pandas",
    "scipy",
    "sympy",
    "nltk",
    "jieba",
    "sacrebleu",
    "numpy",
    "pydantic",
)
NOT_NEEDED = ("vlmscope.ratings", "vlmscope.runner", "vlmscope.metrics.megabench.query")


def _modules_after(code: str) -> list[str]:
    """`sys.modules` of a fresh interpreter after running `code`."""
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    finished = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(finished.stdout.splitlines()[-1])
    return loaded


def _offending(loaded: list[str]) -> list[str]:
    return [
        name
        for name in loaded
        if name.split(".")[0] in HEAVY
        or any(name == prefix or name.startswith(prefix + ".") for prefix in NOT_NEEDED)
    ]


def test_the_megabench_command_module_imports_nothing_heavy() -> None:
    loaded = _modules_after("import vlmscope.cli.megabench")
    assert "vlmscope.cli.megabench" in loaded
    assert _offending(loaded) == []


def test_the_top_level_parser_for_a_megabench_command_builds_only_that_command() -> None:
    loaded = _modules_after(
        "from vlmscope.cli import build_parser\n"
        "args = build_parser(['megabench', 'score-cases', 'in.jsonl', '--out', 'o'])"
        ".parse_args(['megabench', 'score-cases', 'in.jsonl', '--out', 'o'])\n"
        "assert args.megabench_command == 'score-cases'"
    )
    assert _offending(loaded) == []
    assert "vlmscope.cli.ratings" not in loaded


def test_every_command_is_mapped_to_the_module_that_adds_it() -> None:
    added: dict[str, str] = {}
    for module_name in top_level._SUBCOMMANDS:
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module_name).add_subparser(subparsers)
        added.update(dict.fromkeys(subparsers.choices, module_name))
    assert added == top_level._COMMAND_MODULES


def test_help_and_unknown_commands_still_see_every_command() -> None:
    assert top_level._modules_for([]) == top_level._SUBCOMMANDS
    assert top_level._modules_for(["--help"]) == top_level._SUBCOMMANDS
    assert top_level._modules_for(["no-such-command"]) == top_level._SUBCOMMANDS
    assert top_level._modules_for(["megabench", "score"]) == ("vlmscope.cli.megabench",)
