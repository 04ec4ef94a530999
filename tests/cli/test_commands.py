"""The `vlmscope` command as a user meets it: every command explains itself, `--version`, the
Space command's checks, and a push that fails (offline) says where the results are and how to
push them later, through the real command lines."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vlmscope.cli import build_parser
from vlmscope.shipped_configs import config_path, shipped_config, shipped_names

ROOT = Path(__file__).resolve().parents[2]
COLOURS = ROOT / "tests" / "configs" / "colours_oracle.yaml"


def command(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    settings = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "plugins")]),
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "vlmscope", *args],
        cwd=cwd,
        env=settings,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def commands(parser: argparse.ArgumentParser, name: str = "vlmscope"):  # noqa: ANN201
    """(name, parser, help line) of every command and subcommand under `parser`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for sub, subparser in action.choices.items():
                yield f"{name} {sub}", subparser, helps.get(sub)
                yield from commands(subparser, f"{name} {sub}")


def test_every_command_has_a_description_and_a_help_line() -> None:
    found = list(commands(build_parser()))
    assert {"vlmscope demo", "vlmscope space", "vlmscope publish", "vlmscope run"} <= {
        name for name, _, _ in found
    }
    undescribed = [name for name, parser, _ in found if not (parser.description or "").strip()]
    unlisted = [name for name, _, help_line in found if not help_line]
    assert (undescribed, unlisted) == ([], [])


def test_version_prints_the_package_version() -> None:
    from vlmscope import __version__

    done = command("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"vlmscope {__version__}")


def test_space_names_a_missing_results_folder_in_one_line(tmp_path: Path) -> None:
    done = command("space", "nowhere", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: no results folder nowhere here: run `vlmscope demo` (results/demo) or "
        "`vlmscope run --config ...` first, or name the folder a run wrote"
    ]


def test_a_failed_push_keeps_the_results_and_names_the_publish_command(tmp_path: Path) -> None:
    out = tmp_path / "results"
    done = command("run", "--config", str(COLOURS), "--output-dir", str(out),
                    "--push-to-hub", "org/results")  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: could not push {out} to org/results (OfflineModeIsEnabled")
    assert last.endswith(f"push them later with: vlmscope publish {out} org/results")
    summary = json.loads((out / "run_report.json").read_text())["tracks"][0]["summary"]
    assert summary["accuracy"] == 1.0  # the evaluation itself was kept

    again = command("publish", str(out), "org/results")
    assert again.returncode == 1 and len(again.stderr.strip().splitlines()) == 1
    assert "vlmscope publish" in again.stderr
    assert command("publish", str(tmp_path / "empty"), "org/x").returncode == 2


def test_a_readme_config_path_reads_the_shipped_config_outside_a_checkout(tmp_path: Path) -> None:
    assert set(shipped_names()) == {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    for name in shipped_names():  # the package's copies are the checkout's configs
        assert shipped_config(name).read_bytes() == (ROOT / "configs" / f"{name}.yaml").read_bytes()
    here = ROOT / "configs" / "demo.yaml"
    assert config_path(here) == (here, "")
    missing = tmp_path / "configs" / "demo.yaml"
    path, note = config_path(missing)
    assert path == shipped_config("demo") and note.startswith(f"{missing} is not here")
    assert config_path(tmp_path / "configs" / "mine.yaml") == (
        tmp_path / "configs" / "mine.yaml",
        "",
    )
    assert config_path(tmp_path / "demo.yaml") == (tmp_path / "demo.yaml", "")


def test_the_demo_prices_are_found_outside_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`configs/demo.yaml` names `configs/pricing_example.yaml`: in a folder without it (as
    `vlmscope demo` from a wheel is), the shipped copy is read, not a missing file."""
    from vlmscope.runner.pricing import load_prices

    monkeypatch.chdir(tmp_path)
    assert load_prices("configs/pricing_example.yaml") == load_prices(
        ROOT / "configs" / "pricing_example.yaml"
    )


def test_the_rejudge_example_judge_is_found_outside_a_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlmscope.cli.rejudge import read_judge

    monkeypatch.chdir(tmp_path)
    judge = read_judge(Path("configs/coin_judge_b.yaml"))
    assert judge == read_judge(ROOT / "configs" / "coin_judge_b.yaml")
    assert judge.backend == "coin"
