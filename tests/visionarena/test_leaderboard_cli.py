"""`vlmscope visionarena leaderboard` on the shipped Battle sample and on a FastChat battles file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ratings.arena_golden import GOLDEN_DIR
from vlmscope.cli import main
from vlmscope.hub_export import load_folder
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR


def test_battle_dataset_to_a_result_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "arena"
    code = main(
        [
            "visionarena",
            "leaderboard",
            str(SAMPLE_DIR / "battle"),
            "--result-dir",
            str(out),
            "--bootstrap",
            "10",
            "--out",
            str(tmp_path / "board.json"),
        ]  # fmt: skip
    )
    assert code == 0, capsys.readouterr().err
    (row,) = list(load_folder(out, "summary"))
    board = RatingBoard.from_json(row["board"])
    assert row["track"] == "visionarena"
    assert "anonymous" in board.settings.extra["anony"]
    assert "captioning" in board.categories and board.style_control is not None
    assert len(list(load_folder(out, "details"))) == 100
    assert json.loads((tmp_path / "board.json").read_text())["models"].keys() == board.models.keys()


def test_a_fastchat_battles_file_and_a_bad_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (GOLDEN_DIR / "battles_5k.jsonl").read_text(encoding="utf-8").splitlines()[:400]
    good = tmp_path / "battles.jsonl"
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(
        ["visionarena", "leaderboard", str(good), "--bootstrap", "5", "--languages", "English"]
    )
    assert code == 0
    assert "language: English" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + lines[1].replace('"winner":"', '"winner":"banana') + "\n")
    assert main(["visionarena", "leaderboard", str(bad)]) == 2
    assert "bad.jsonl" in capsys.readouterr().err


def test_the_result_hash_covers_the_input_and_the_settings(tmp_path: Path) -> None:
    def hashed(name: str, *flags: str) -> str:
        out = tmp_path / name
        argv = ["visionarena", "leaderboard", str(SAMPLE_DIR / "battle"), "--result-dir", str(out)]
        assert main([*argv, "--bootstrap", "5", *flags]) == 0
        (row,) = list(load_folder(out, "summary"))
        return str(row["config_hash"])

    assert hashed("a") == hashed("b") != hashed("c", "--min-votes", "50")
