"""A battles or verdicts file is rated once as it is: a repeated id, an input with no rows and
battles in groups that never met are each named, never rated as if nothing were wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ratings.arena_golden import GOLDEN_DIR
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE
from vlmscope.cli import main

BATTLES = [json.loads(line) for line in (GOLDEN_DIR / "battles_5k.jsonl").open()][:300]
VERDICTS = [json.loads(line) for line in VERDICTS_FILE.open()][:120]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _rate(kind: str, file: Path, out: Path, *flags: str) -> int:
    extra = ["--baseline", BASELINE] if kind == "verdicts" else []
    return main(["ratings", kind, str(file), *extra, "--bootstrap", "5", *flags, "--out", str(out)])


def _board(path: Path) -> dict[str, Any]:
    board: dict[str, Any] = json.loads(path.read_text())
    return board


@pytest.mark.parametrize(
    ("kind", "rows", "field", "flags"),
    [
        ("battles", BATTLES, "question_id", ()),  # streamed in blocks
        ("battles", BATTLES, "question_id", ("--categories", "ocr")),  # read row by row
        ("verdicts", VERDICTS, "uid", ()),
    ],
    ids=["battles-streamed", "battles-records", "verdicts"],
)
def test_a_file_given_twice_is_refused_or_its_repeats_counted(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    rows: list[dict[str, Any]],
    field: str,
    flags: tuple[str, ...],
) -> None:
    once, twice = _write(tmp_path / "once.jsonl", rows), _write(tmp_path / "twice.jsonl", rows * 2)
    out = tmp_path / "board.json"
    assert _rate(kind, twice, out, *flags) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: vlmscope ratings {kind}: {twice} line {len(rows) + 1}: ")
    assert f"field {field!r}" in err and "repeats the row at line 1" in err
    assert "(repeated)" in err and not out.exists()

    assert _rate(kind, twice, out, *flags, "--skip-bad-rows") == 0
    assert f"skipped {len(rows)} bad rows (repeated {len(rows)})" in capsys.readouterr().out
    skipped = _board(out)
    assert _rate(kind, once, out, *flags) == 0
    reference = _board(out)
    assert skipped["settings"].pop("skipped") == {"repeated": len(rows)}
    assert reference["settings"].pop("skipped") == {}
    assert skipped == reference  # the same intervals as the file given once


@pytest.mark.parametrize("kind", ["battles", "verdicts"])
@pytest.mark.parametrize("text", ["", "\n\n", "[]"])
def test_an_input_with_no_rows_is_an_error_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, text: str
) -> None:
    empty = tmp_path / ("empty.json" if text == "[]" else "empty.jsonl")
    empty.write_text(text, encoding="utf-8")
    out = tmp_path / "board.json"
    assert _rate(kind, empty, out) == 2
    assert capsys.readouterr().err == (
        f"error: vlmscope ratings {kind}: {empty}: holds no rows; "
        "--allow-empty accepts an empty input\n"
    )
    assert not out.exists()
    assert _rate(kind, empty, out, "--allow-empty") == 0
    board = _board(out)
    assert board["models"] == {} and board["settings"]["empty_input"] is True


def _two_groups() -> list[dict[str, Any]]:
    """The golden battles between two disjoint groups of models, interleaved."""
    models = sorted({r["model_a"] for r in BATTLES} | {r["model_b"] for r in BATTLES})
    left = set(models[: len(models) // 2])
    return [r for r in BATTLES if (r["model_a"] in left) == (r["model_b"] in left)]


def test_battles_in_groups_that_never_met_are_named_or_rated_per_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _two_groups()
    file = _write(tmp_path / "split.jsonl", rows)
    out = tmp_path / "board.json"
    assert _rate("battles", file, out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: vlmscope ratings battles: {file}: the battles form 2 groups")
    assert "--per-component" in err and not out.exists()

    assert _rate("battles", file, out, "--per-component") == 0
    board = _board(out)
    groups = board["settings"]["components"]
    assert len(groups) == 2 and set(board["models"]) == set(groups[0])
    assert set(board["categories"]["component 2"]["models"]) == set(groups[1])
    for k, group in enumerate(groups):  # each group's board is its battles rated alone
        alone = _write(tmp_path / f"group{k}.jsonl", [r for r in rows if r["model_a"] in group])
        assert _rate("battles", alone, tmp_path / "alone.json") == 0
        expected = _board(tmp_path / "alone.json")["models"]
        got = board["models"] if k == 0 else board["categories"]["component 2"]["models"]
        assert got == expected


def test_a_category_board_in_pieces_is_skipped_with_the_groups(tmp_path: Path) -> None:
    within = {r["question_id"] for r in _two_groups()}
    rows = []
    for r in BATTLES:  # the OCR board holds only battles within the two groups
        tags = json.loads(json.dumps(r["category_tag"]))
        tags["ocr_v0.1"]["ocr"] = r["question_id"] in within
        rows.append({**r, "category_tag": tags})
    file = _write(tmp_path / "b.jsonl", rows)
    out = tmp_path / "board.json"
    assert _rate("battles", file, out, "--categories", "ocr,homework") == 0
    board = _board(out)
    assert "ocr" not in board["categories"] and "homework" in board["categories"]
    assert board["settings"]["skipped_categories"]["ocr"].startswith(
        "the battles form 2 groups of models that never met"
    )


def test_the_vision_leaderboard_names_an_empty_input_and_groups_that_never_met(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "board.json"

    def leaderboard(file: Path, *flags: str) -> int:
        argv = ["visionarena", "leaderboard", str(file), "--bootstrap", "5", *flags]
        return main([*argv, "--out", str(out)])

    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    assert leaderboard(empty) == 2
    assert capsys.readouterr().err == (
        f"error: vlmscope visionarena leaderboard: {empty}: holds no rows; "
        "--allow-empty accepts an empty input\n"
    )
    assert leaderboard(empty, "--allow-empty") == 0 and _board(out)["models"] == {}

    split = _write(tmp_path / "split.jsonl", _two_groups())
    assert leaderboard(split) == 2
    err = capsys.readouterr().err
    assert f"{split}: the battles form 2 groups of models that never met" in err
    assert leaderboard(split, "--per-component") == 0
    board = _board(out)
    groups = board["settings"]["components"]
    assert set(board["models"]) == set(groups[0])
    assert set(board["categories"]["component 2"]["models"]) == set(groups[1])
