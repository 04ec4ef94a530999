"""The style feature cases recorded from the official code (`official_sweep/
style_feature_cases.json`), read once, and a case's answer metadata as the score rows arena-hard
v2's style control takes."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from vlmscope.ratings.inputs.verdict_battles import JudgedScore
from vlmscope.ratings.inputs.verdict_records import AnswerStyle

CASES_FILE = Path(__file__).resolve().parent / "official_sweep" / "style_feature_cases.json"


@cache
def style_cases() -> dict[str, list[dict[str, Any]]]:
    """Every group of cases in the file, by its key (`fastchat`, `arena_hard_v2`, ...)."""
    loaded: dict[str, list[dict[str, Any]]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    return loaded


def v2_scores(case: dict[str, Any]) -> list[JudgedScore]:
    """One score row per recorded answer pair, model `m` against `base`."""
    return [
        JudgedScore(
            uid=f"u{k}",
            model="m",
            baseline="base",
            score=1.0,
            model_style=AnswerStyle.from_metadata(row["model_metadata"], "model_metadata"),
            baseline_style=AnswerStyle.from_metadata(row["baseline_metadata"], "baseline_metadata"),
        )
        for k, row in enumerate(case["rows"])
    ]
