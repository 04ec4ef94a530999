"""The arena_ratings evaluate module and `vlmscope ratings battles` rate the same battle file to
the same board: given the file's `anony` column, the module leaves out the battles that were
not anonymous, as the command (and FastChat) does, so ratings and battle counts agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_battles
from vlmscope.ratings.inputs.battles import battles_from_columns
from vlmscope.ratings.inputs.row_checks import BadRowError

evaluate = pytest.importorskip("evaluate")

REPO = Path(__file__).resolve().parents[2]
MODULE_DIR = REPO / "evaluate_metrics" / "arena_ratings"
BATTLES = REPO / "tests" / "golden" / "arena" / "battles_5k.jsonl"


def _rows() -> list[dict]:
    return [json.loads(line) for line in BATTLES.read_text(encoding="utf-8").splitlines()][:1500]


def test_the_module_rates_the_commands_battles() -> None:
    rows = _rows()
    assert not all(r["anony"] for r in rows)  # the file has battles the command leaves out
    command = rate_battles(rows, BattleSettings(rounds=5, seed=3))["models"]
    module = evaluate.load(str(MODULE_DIR), "bt").compute(
        model_a=[r["model_a"] for r in rows],
        model_b=[r["model_b"] for r in rows],
        winner=[r["winner"] for r in rows],
        anony=[r["anony"] for r in rows],
        rounds=5,
        seed=3,
    )["models"]
    assert set(module) == set(command)
    for model, entry in command.items():
        assert module[model]["battles"] == entry["battles"]
        assert module[model]["rating"] == pytest.approx(entry["rating"], abs=1e-3)


def test_an_anony_item_that_is_not_a_flag_is_named() -> None:
    with pytest.raises(BadRowError, match="anony"):
        battles_from_columns(["a", "b"], ["b", "a"], ["model_a", "tie"], anony=[True, "false"])
