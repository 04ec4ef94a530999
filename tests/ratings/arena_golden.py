"""Shared access to the FastChat goldens (tests/golden/arena), produced by the reference code."""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlmscope.ratings import Battles, load_records, select_battles

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden" / "arena"

# The README's skip list: models with < 30 battles in a category board. Their data are
# separable, the MLE is at infinity and the reference value is wherever L-BFGS stopped.
SEPARABLE: dict[str, set[str]] = {
    "smolvlm-2b-05": {
        "captioning",
        "captioning_style_control",
        "creative_writing_vision",
        "diagram",
        "entity_recognition",
        "homework",
        "humor",
        "ocr",
    },
    "claude-vis-72b-06": {"humor"},
}


@cache
def golden(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((GOLDEN_DIR / name).read_text(encoding="utf-8"))
    return loaded


@cache
def records() -> tuple[dict[str, Any], ...]:
    return tuple(load_records(GOLDEN_DIR / "battles_5k.jsonl"))


@cache
def anony_battles() -> Battles:
    """The components' input: anonymous battles sorted by tstamp."""
    return Battles.from_records(select_battles(records()))


def by_model(values: dict[str, float], models: tuple[str, ...]) -> np.ndarray:
    return np.array([values[m] for m in models], dtype=np.float64)


def assert_board_matches(
    result: dict[str, Any], board: dict[str, Any], skip: AbstractSet[str] = frozenset()
) -> None:
    """A board's JSON (`RatingBoard.to_json()`) against one board of fastchat_leaderboards.json:
    same battles and models, points within 0.1, interval ends within 0.2 (`skip`: separable
    models, whose reference value is wherever the optimiser stopped)."""
    assert result["settings"]["n_battles"] == board["n_battles"]
    assert set(result["models"]) == set(board["rating"])
    for model, got in result["models"].items():
        assert got["battles"] == board["num_battles"][model]
        if model in skip:
            continue
        assert got["rating"] == pytest.approx(board["rating"][model], abs=0.1)
        assert got["lower"] == pytest.approx(board["rating_q025"][model], abs=0.2)
        assert got["upper"] == pytest.approx(board["rating_q975"][model], abs=0.2)


def separable_in(board_key: str) -> set[str]:
    """The models to skip on one golden board (see SEPARABLE)."""
    return {model for model, boards in SEPARABLE.items() if board_key in boards}
