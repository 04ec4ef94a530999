"""`vlmscope compare` on the terminal, as JSON and as Markdown; bad input named; a cheap start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compare.conftest import COIN, ORACLE, TWIN
from vlmscope.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_two_models_every_track_on_the_terminal_json_and_markdown(
    compare_results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, card = tmp_path / "comparison.json", tmp_path / "card.md"
    argv = ["compare", str(compare_results), ORACLE, COIN, "--rounds", "200"]
    assert main([*argv, "--out", str(out), "--markdown", str(card)]) == 0
    shown = capsys.readouterr()
    for title in (
        "== MEGA-Bench (megabench) ==",
        "== SimpleVQA (simplevqa) ==",
        "== ProBench (probench) ==",
    ):
        assert title in shown.out
    assert "== VisionArena-Bench (visionarena_bench) ==" in shown.out
    assert f"P({ORACLE} beats {COIN})" in shown.out and "mcnemar:" in shown.out
    assert "Tasks that move most" in shown.out and "[4/5] comparing visionarena_bench" in shown.err
    written = json.loads(out.read_text())
    assert written["models"] == [ORACLE, COIN] and written["settings"]["rounds"] == 200
    assert [t["track"] for t in written["tracks"]][:2] == ["megabench", "probench"]
    markdown = card.read_text()
    assert "### MEGA-Bench" in markdown and "| number |" in markdown


def test_markdown_alone_and_one_track(
    compare_results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", str(compare_results), ORACLE, COIN, "--track", "simplevqa", "--markdown"]
    assert main([*argv, "--rounds", "100"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"## Comparison: {ORACLE}, {COIN}") and "### SimpleVQA" in shown
    assert "MEGA-Bench" not in shown


def test_several_models_give_the_pairwise_matrix(
    compare_results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", str(compare_results), ORACLE, TWIN, COIN, "--track", "megabench"]
    assert main([*argv, "--rounds", "100"]) == 0
    shown = capsys.readouterr().out
    assert "overall: row model - column model" in shown
    row = next(line for line in shown.splitlines() if line.strip().startswith(COIN))
    assert row.count("-87.50 [") == 2  # the coin model, 87.50 points behind each oracle


def test_bad_input_is_named(
    compare_results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(compare_results), ORACLE, "nobody"]) == 2
    assert "no results for nobody; the results hold" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "none"), ORACLE, COIN]) == 2
    assert "no such results folder" in capsys.readouterr().err
    assert main(["compare", str(compare_results), ORACLE]) == 2
    assert "at least two models" in capsys.readouterr().err


def test_a_misspelt_model_or_track_is_named_with_the_one_meant(
    compare_results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(compare_results), ORACLE, COIN.upper()]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: vlmscope compare: no results for {COIN.upper()} (did you ")
    assert f"mean {COIN!r}?); the results hold " in err and err.count("\n") == 1
    argv = ["compare", str(compare_results), ORACLE, COIN, "--track", "simplevq"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no results for track simplevq (did you mean 'simplevqa'?); the results hold " in err


def test_help_explains_and_the_command_starts_cheaply() -> None:
    script = (
        "import json, sys\n"
        "from vlmscope.cli import build_parser\n"
        "build_parser(['compare', 'r', 'a', 'b']).parse_args(['compare', 'r', 'a', 'b'])\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout.splitlines()[-1])
    heavy = [
        m for m in loaded if m.split(".")[0] in ("numpy", "scipy", "pandas", "torch", "pyarrow")
    ]
    assert heavy == [] and "vlmscope.leaderboard.compare.run" not in loaded
    helped = subprocess.run(
        [sys.executable, "-m", "vlmscope", "compare", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "McNemar" in helped.stdout and "pairwise matrix" in helped.stdout
