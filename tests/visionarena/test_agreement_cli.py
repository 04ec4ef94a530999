"""`vlmscope visionarena agreement`: two leaderboards from folders, board JSON and tables."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from vlmscope.cli import main
from vlmscope.cli.board_files import BoardFileError, read_board
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RatingBoard]:
    """The shipped battles rated into a result folder (and the same board as JSON)."""
    out = tmp_path_factory.mktemp("arena")
    code = main(
        [
            "visionarena",
            "leaderboard",
            str(SAMPLE_DIR / "battle"),
            "--result-dir",
            str(out / "board"),
            "--bootstrap",
            "10",
            "--out",
            str(out / "board.json"),
        ]  # fmt: skip
    )
    assert code == 0
    return out, RatingBoard.from_json(json.loads((out / "board.json").read_text()))


def _table(path: Path, board: RatingBoard, *, flip: bool = False, bounds: bool = True) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        fields = ["model", "score", "lower", "upper"] if bounds else ["model", "score"]
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for name, entry in board.models.items():
            sign = -1 if flip else 1
            row = {"model": name, "score": sign * entry.rating}
            if bounds:
                low, up = sorted((sign * entry.lower, sign * entry.upper))
                row |= {"lower": low, "upper": up}
            writer.writerow(row)
    return path


def _agree(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "agreement.json"
    assert main(["visionarena", "agreement", *args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_a_board_agrees_with_its_own_table(
    tmp_path: Path, arena: tuple[Path, RatingBoard], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, board = arena
    table = _table(tmp_path / "same.csv", board)
    result = _agree(tmp_path, str(folder / "board"), str(table))
    assert sorted(result["models"]) == sorted(board.models)
    assert result["spearman"] == pytest.approx(1.0)
    assert result["kendall_tau"] == pytest.approx(1.0)
    assert result["pairwise_accuracy"] == 1.0
    # the same intervals on both sides: every separated pair agrees
    assert result["confidence_agreement"] == pytest.approx(result["separability_x"])
    assert 0 < result["brier"] < 0.25
    printed = capsys.readouterr().out
    assert "pairwise accuracy 1.000" in printed and "brier" in printed


def test_a_reversed_table_disagrees_and_a_table_without_bounds_separates_nothing(
    tmp_path: Path, arena: tuple[Path, RatingBoard]
) -> None:
    folder, board = arena
    flipped = _agree(
        tmp_path, str(folder / "board.json"), str(_table(tmp_path / "f.csv", board, flip=True))
    )
    assert flipped["spearman"] == pytest.approx(-1.0)
    assert flipped["pairwise_accuracy"] == 0.0
    assert flipped["confidence_agreement"] == pytest.approx(-flipped["separability_x"])
    assert flipped["brier"] > 0.25
    bare = _agree(
        tmp_path, str(folder / "board.json"), str(_table(tmp_path / "b.csv", board, bounds=False))
    )
    assert bare["separability_y"] == 0.0 and bare["confidence_agreement"] == 0.0
    assert bare["spearman"] == pytest.approx(1.0)


def test_views_inside_a_board(tmp_path: Path, arena: tuple[Path, RatingBoard]) -> None:
    folder, board = arena
    category = next(iter(board.categories))
    view = board.categories[category]
    table = _table(tmp_path / "cat.csv", view)
    result = _agree(tmp_path, str(folder / "board"), str(table), "--category-x", category)
    assert result["inputs"]["x"]["category"] == category
    assert result["spearman"] == pytest.approx(1.0)
    assert board.style_control is not None
    styled = _table(tmp_path / "styled.csv", board.style_control)
    result = _agree(tmp_path, str(folder / "board"), str(styled), "--style-control-x")
    assert result["pairwise_accuracy"] == 1.0


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("t.csv", "model,score\na,1\nb,oops\n", "line 3: field `score`: 'oops' is not a number"),
        ("t.csv", "model,score,lower\na,1,0\n", "line 2: field `upper`: give both bounds"),
        ("t.jsonl", '{"model": "a", "score": 1}\n{"score": 2}\n', "line 2: field `model`"),
        ("t.jsonl", '{"model": "a", "score": 1}\n{oops\n', "line 2: not JSON"),
        ("t.json", '[{"model": "a", "elo": 1}, {"model": "a", "elo": 2}]', "listed twice"),
        ("t.csv", "model,score,lower,upper\na,5,0,4\n", "lies outside [0.0, 4.0]"),
        (
            "t.csv",
            "name,score\na,1\n",
            "line 2: field `model`: absent; a table needs a `model` column (this row has `name`, `score`)",
        ),
        ("t.csv", "model,score\n,1\n", "line 2: field `model`: a non-empty name is required"),
    ],
)
def test_a_bad_table_names_the_file_line_and_field(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BoardFileError) as error:
        read_board(path)
    assert name in str(error.value) and message in str(error.value)


def test_command_errors_exit_2_with_the_reason(
    tmp_path: Path, arena: tuple[Path, RatingBoard], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, board = arena
    table = _table(tmp_path / "t.csv", board)
    assert (
        main(
            ["visionarena", "agreement", str(folder / "board"), str(table), "--category-x", "nope"]
        )
        == 2
    )
    assert "no category 'nope'" in capsys.readouterr().err
    one = tmp_path / "one.csv"
    one.write_text(f"model,score\n{next(iter(board.models))},1\n", encoding="utf-8")
    assert main(["visionarena", "agreement", str(folder / "board"), str(one)]) == 2
    assert "need two to compare" in capsys.readouterr().err
    assert main(["visionarena", "agreement", str(tmp_path / "missing"), str(table)]) == 2
    assert "no such file or folder" in capsys.readouterr().err
