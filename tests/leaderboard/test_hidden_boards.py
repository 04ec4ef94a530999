"""A rating board that a later board of the same track hides is named with the models only it
rates (two runs of different models each fit their own board; the Space shows the latest), and
a re-rating of the same models, which replaces its board as it should, is not."""

from __future__ import annotations

import json
from pathlib import Path

from vlmscope import cli as vlmscope_cli
from vlmscope.cli.space.app import HIDDEN_BOARDS_NOTE, found_note
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.safe_html import markdown_literal

BATTLES = Path(__file__).resolve().parents[1] / "golden" / "arena" / "battles_5k.jsonl"
LEFT = "glm-4v-72b-07"  # in the earlier board's battles, not in the later board's


def _rate(rows: list[str], battles: Path, board: Path) -> None:
    battles.write_text("".join(rows), encoding="utf-8")
    argv = ["ratings", "battles", str(battles), "--bootstrap", "5", "--result-dir", str(board)]
    assert vlmscope_cli.main(argv) == 0


def _models(rows: list[str]) -> set[str]:
    return {json.loads(r)[side] for r in rows for side in ("model_a", "model_b")}


def test_a_hidden_board_names_the_models_only_it_rates(tmp_path: Path) -> None:
    rows = BATTLES.read_text(encoding="utf-8").splitlines(keepends=True)[:400]
    without = [r for r in rows if LEFT not in (json.loads(r)["model_a"], json.loads(r)["model_b"])]
    results = tmp_path / "results"
    _rate(rows, tmp_path / "all.jsonl", results / "first" / "_boards" / "visionarena")
    _rate(without, tmp_path / "without.jsonl", results / "second" / "_boards" / "visionarena")
    store = ResultStore(ResultsLocation.local(results))
    assert store.boards["visionarena"].folder.parent.parent.name == "second"  # the latest
    [hidden] = store.hidden_boards
    assert hidden.folder == "first/_boards/visionarena"
    assert set(hidden.models) == _models(rows) - _models(without) and LEFT in hidden.models
    note = found_note(store)
    assert HIDDEN_BOARDS_NOTE in note and markdown_literal(LEFT) in note
    assert markdown_literal("first/_boards/visionarena") in note


def test_a_re_rating_of_the_same_models_hides_nothing(tmp_path: Path) -> None:
    rows = BATTLES.read_text(encoding="utf-8").splitlines(keepends=True)[:400]
    results = tmp_path / "results"
    _rate(rows, tmp_path / "a.jsonl", results / "first" / "_boards" / "visionarena")
    _rate(rows, tmp_path / "b.jsonl", results / "second" / "_boards" / "visionarena")
    store = ResultStore(ResultsLocation.local(results))
    assert store.hidden_boards == []
    assert HIDDEN_BOARDS_NOTE not in found_note(store)
