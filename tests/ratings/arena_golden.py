"""Shared access to the FastChat goldens (tests/golden/arena), produced by the reference code."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

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
