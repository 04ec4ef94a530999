"""The typed board the rating producers return, and `vlmscope ratings --result-dir`.

`battle_board` / `verdict_board` carry the style-controlled companion and the category boards;
the result dataset written by the CLI must hold the same numbers as FastChat's own boards
(`fastchat_leaderboards.json`, same tolerances as the preset tests) and the battles it used.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.ratings.arena_golden import (
    GOLDEN_DIR,
    anony_battles,
    assert_board_matches,
    golden,
    records,
    separable_in,
)
from tests.ratings.test_cli import check_arena_hard_v01
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE, verdict_records
from vlmscope.cli import main
from vlmscope.cli import ratings as cli
from vlmscope.hub_export import load_folder
from vlmscope.ratings.boards.battle_presets import BattleSettings, battle_board
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.boards.names import BATTLE_CATEGORIES
from vlmscope.ratings.boards.verdict_presets import (
    VERDICT_REFERENCES,
    VerdictSettings,
    verdict_board,
    verdict_categories,
)
from vlmscope.ratings.inputs.verdict_records import verdict_record_from_dict

BATTLES_FILE = GOLDEN_DIR / "battles_5k.jsonl"
BOARDS = golden("fastchat_leaderboards.json")
AH_V01 = golden("arena_hard_v01_verdicts.json")
QUICK = BattleSettings(rounds=5, seed=0)


@cache
def fastchat_board() -> RatingBoard:
    """The FastChat reference board with every category and style companions."""
    return battle_board(
        records(),
        BattleSettings(reference="fastchat"),
        categories=BATTLE_CATEGORIES,
        style_companion=True,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vlmscope")
    cli.add_subparser(parser.add_subparsers(dest="command", required=True))
    return parser


def ratings(*argv: str) -> int:
    args = _parser().parse_args(["ratings", *argv])
    code: int = args.func(args)
    return code


def open_result(folder: Path) -> tuple[dict[str, Any], RatingBoard, list[dict[str, Any]]]:
    """The summary row, its board and the details rows of a board result dataset."""
    summary = load_folder(folder, "summary")
    assert summary.num_rows == 1
    row = summary[0]
    details = load_folder(folder, "details")
    return row, RatingBoard.from_json(row["board"]), list(details)


def test_board_json_round_trip_keeps_everything() -> None:
    board = fastchat_board()
    text = json.dumps(board.to_json())
    assert RatingBoard.from_json(json.loads(text)) == board
    assert board.style_control is not None and board.categories
    assert all(c.style_control is not None for c in board.categories.values())


def test_battle_board_companions_are_the_preset_boards() -> None:
    board = fastchat_board()
    # the golden battles carry no refusal labels: that board is listed, with why, not faked
    assert list(board.categories) == [c for c in BATTLE_CATEGORIES if c != "no_refusal"]
    assert board.skipped_categories == {
        "no_refusal": "no battle is labelled for it (4772 unlabelled)"
    }
    assert board.view(style_control=True) is board.style_control
    assert board.view("ocr", style_control=True) is board.categories["ocr"].style_control
    for name, category in board.categories.items():
        assert category.settings.extra["category"] == name
        assert category.categories == {}
        assert category.style_control is not None
        assert category.style_control.settings.style_control is True


def test_battle_board_skips_categories_it_cannot_fill() -> None:
    english = [r for r in records() if r["language"] == "English"]
    board = battle_board(english, QUICK, categories=("chinese", "english"))
    assert list(board.categories) == ["english"]
    assert board.skipped_categories == {"chinese": "no battles left"}
    untagged = [{k: v for k, v in r.items() if k != "category_tag"} for r in records()[:300]]
    board = battle_board(untagged, QUICK, categories=("ocr", "multiturn"))
    assert list(board.categories) == ["multiturn"]
    assert board.skipped_categories["ocr"].startswith("no battle is labelled for it (")


@pytest.mark.parametrize(
    ("settings", "kwargs", "message"),
    [
        (QUICK, {"categories": ("full",)}, "categories"),
        (QUICK, {"categories": ("nonsense",)}, "nonsense"),
        (BattleSettings(rounds=5, category="ocr"), {"categories": ("humor",)}, "'ocr'"),
        (BattleSettings(rounds=5, system="elo"), {"style_companion": True}, "style companion"),
    ],
)
def test_battle_board_rejects_what_it_cannot_do(
    settings: BattleSettings, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        battle_board(records()[:200], settings, **kwargs)


def test_style_controlled_board_has_no_companion() -> None:
    board = battle_board(
        records()[:500], BattleSettings(rounds=5, style_control=True), style_companion=True
    )
    assert board.is_style_controlled and board.style_control is None


def test_battles_result_dir_matches_the_fastchat_boards(tmp_path: Path) -> None:
    folder = tmp_path / "arena"
    argv = [str(BATTLES_FILE), "--reference", "fastchat", "--style-control"]
    assert ratings("battles", *argv, "--result-dir", str(folder)) == 0
    row, board, details = open_result(folder)

    assert_board_matches(board.to_json(), BOARDS["full"])
    assert {m: e.rank for m, e in board.models.items()} == BOARDS["full"]["final_ranking"]
    assert board.style_control is not None
    assert_board_matches(board.style_control.to_json(), BOARDS["full_style_control"])

    assert set(board.categories) == set(BATTLE_CATEGORIES) - {"no_refusal"}  # no refusal labels
    golden_categories = set(board.categories) & set(BOARDS)
    assert {"ocr", "captioning", "dedup", "english", "is_preset", "no_tie"} <= golden_categories
    for name in golden_categories:
        assert_board_matches(board.categories[name].to_json(), BOARDS[name], separable_in(name))
    styled = board.view("captioning", style_control=True)
    assert styled is not None
    key = "captioning_style_control"
    assert_board_matches(styled.to_json(), BOARDS[key], separable_in(key))

    assert len(details) == row["n_rows"] == len(anony_battles()) == BOARDS["full"]["n_battles"]
    first = json.loads(details[0]["record"])
    assert (details[0]["model_a"], details[0]["model_b"]) == (first["model_a"], first["model_b"])
    assert row["track"] == "visionarena"
    assert row["source"] == "ratings battles battles_5k.jsonl"
    assert len(row["config_hash"]) == 16
    assert row["started_at"] <= row["finished_at"]


def test_config_hash_follows_settings_and_input(tmp_path: Path) -> None:
    def hashed(name: str, *flags: str, file: Path = BATTLES_FILE) -> str:
        folder = tmp_path / name
        assert (
            ratings("battles", str(file), "--bootstrap", "5", *flags, "--result-dir", str(folder))
            == 0
        )
        return str(load_folder(folder, "summary")[0]["config_hash"])

    copy = tmp_path / "renamed.jsonl"
    copy.write_bytes(BATTLES_FILE.read_bytes()[:200_000].rpartition(b"\n")[0] + b"\n")
    base = hashed("a", "--categories", "ocr", file=copy)
    assert hashed("b", "--categories", "ocr", file=copy) == base
    assert hashed("c", "--categories", "ocr", "--seed", "1", file=copy) != base
    assert hashed("d", "--categories", "humor", file=copy) != base


def test_out_with_categories_writes_only_those(tmp_path: Path, capsys) -> None:
    out = tmp_path / "board.json"
    argv = [str(BATTLES_FILE), "--bootstrap", "5", "--categories", "ocr, humor", "--out", str(out)]
    assert ratings("battles", *argv) == 0
    board = RatingBoard.from_json(json.loads(out.read_text()))
    assert list(board.categories) == ["ocr", "humor"] and board.style_control is None
    printed = capsys.readouterr().out
    assert str(out) in printed and "ocr, humor" in printed


def test_verdicts_result_dir(tmp_path: Path) -> None:
    folder = tmp_path / "ah"
    argv = [str(VERDICTS_FILE), "--baseline", BASELINE, "--style-control"]
    assert ratings("verdicts", *argv, "--result-dir", str(folder)) == 0
    row, board, details = open_result(folder)
    expected, rows = AH_V01["both_games"], AH_V01["both_games"]["n_battle_rows"]
    check_arena_hard_v01(board.to_json(), expected["no_style"], rows)
    assert board.style_control is not None
    check_arena_hard_v01(board.style_control.to_json(), expected["style_control"], rows)

    records = verdict_records()
    assert tuple(board.categories) == verdict_categories(records)
    assert len(board.categories) > 1
    for name, category in board.categories.items():
        assert category.settings.extra["category"] == name
        assert category.style_control is not None
    assert row["track"] == "arena-hard" and row["n_rows"] == len(details) == len(records)
    assert details[0]["model_a"] == BASELINE and details[0]["winner"] == ""
    read_back = [verdict_record_from_dict(json.loads(d["record"])) for d in details]
    assert read_back == list(records)


def test_probench_result_dir_is_style_controlled_only(tmp_path: Path) -> None:
    folder = tmp_path / "pb"
    argv = [str(VERDICTS_FILE), "--baseline", BASELINE, "--reference", "probench"]
    assert ratings("verdicts", *argv, "--style-control", "--result-dir", str(folder)) == 0
    row, board, _details = open_result(folder)
    assert row["track"] == "probench"
    assert board.is_style_controlled and board.style_control is None
    assert all(c.is_style_controlled and c.style_control is None for c in board.categories.values())
    assert board.view(style_control=False) is None


@pytest.mark.parametrize("reference", VERDICT_REFERENCES)
def test_verdict_board_skips_categories_it_cannot_score(reference: str) -> None:
    unreadable = [
        replace(r, category="unreadable", judgments=(None, None)) if i < 4 else r
        for i, r in enumerate(verdict_records())
    ]
    settings = VerdictSettings(reference=reference, baseline=BASELINE, rounds=5)
    categories = ("Coding", "Cooking", "unreadable")
    board = verdict_board(unreadable, settings, categories=categories)
    assert list(board.categories) == ["Coding"]
    assert board.skipped_categories["Cooking"] == "no verdict records"
    assert set(board.skipped_categories) == {"Cooking", "unreadable"}


def test_no_output_is_an_argparse_error(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        ratings("battles", str(BATTLES_FILE))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "--out" in err and "--result-dir" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["battles", str(BATTLES_FILE), "--categories", "ocr,nonsense"], "nonsense"),
        (["battles", str(BATTLES_FILE), "--categories", ","], "--categories"),
        (["battles", str(BATTLES_FILE), "--category", "ocr", "--categories", "all"], "--category"),
        (["battles", "no/such/file.jsonl"], "no/such/file.jsonl"),
    ],
)
def test_bad_requests_exit_2_naming_the_problem(
    tmp_path: Path, argv: list[str], message: str, capsys
) -> None:
    out = tmp_path / "x"
    assert ratings(*argv, "--out", str(out / "b.json"), "--result-dir", str(out / "d")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: vlmscope ratings battles:") and message in err
    assert not out.exists()


def test_console_entry_point_runs_ratings(tmp_path: Path) -> None:
    out = tmp_path / "board.json"
    assert (
        main(["ratings", "battles", str(BATTLES_FILE), "--bootstrap", "5", "--out", str(out)]) == 0
    )
    assert RatingBoard.from_json(json.loads(out.read_text())).models


def test_golden_board_comparison_can_fail() -> None:
    result = fastchat_board().to_json()
    top = next(iter(result["models"]))
    result["models"][top]["rating"] += 0.15
    with pytest.raises(AssertionError):
        assert_board_matches(result, BOARDS["full"])


def test_the_no_tie_board_is_fastchats_exclude_tie_board() -> None:
    """A board of its own, equal to `report_elo_analysis_results(..., exclude_tie=True)`."""
    board = fastchat_board().categories["no_tie"]
    assert_board_matches(board.to_json(), BOARDS["no_tie"], separable_in("no_tie"))


def test_a_language_board_is_named_by_its_language() -> None:
    board = battle_board(records()[:1500], QUICK, categories=("language: English",))
    english = [r for r in records()[:1500] if r["language"] == "English" and r.get("anony", True)]
    total = sum(e.battles or 0 for e in board.categories["language: English"].models.values())
    assert total == 2 * len(english)
    with pytest.raises(ValueError, match="unknown board"):
        battle_board(records()[:100], QUICK, categories=("klingon",))
