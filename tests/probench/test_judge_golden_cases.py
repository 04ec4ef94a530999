"""ProBench judge messages and verdict reading agree with the official code run on generated
inputs (`tests/golden/probench_judge_cases.json`, from Yan98/ProBench_eval @ c17b7ae): both game
orders, multi-turn questions, empty answers, answers holding the template's own markers,
braces and unicode; the system prompt as one text part; `get_score` and the retry rule."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from vlmscope.judges.verdicts import DOUBLE_BRACKET_PATTERN, STRICT_RULES, parse_verdict
from vlmscope.models.openai_payload import chat_body
from vlmscope.tracks.probench.judging import judge_game_request, judge_image

GOLDEN: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "golden" / "probench_judge_cases.json").read_text(
        encoding="utf-8"
    )
)
_LABEL = re.compile(DOUBLE_BRACKET_PATTERN)  # what `judge_game` stops at


@pytest.mark.parametrize("case", GOLDEN["games"], ids=lambda c: c["chat_type"])
def test_both_games_are_the_official_messages(case: dict[str, Any]) -> None:
    image = judge_image(base64.b64decode(GOLDEN["image_png_base64"]))
    model, baseline = case["model_answers"], case["baseline_answers"]
    # game "0": the model as Assistant A; game "1": the baseline as Assistant A
    for key, (first, second) in {"0": (model, baseline), "1": (baseline, model)}.items():
        request = judge_game_request(case["chat_type"], image, case["questions"], first, second)
        assert chat_body(request, "judge", None)["messages"] == case["messages"][key]


def test_verdicts_are_read_as_get_score_reads_them() -> None:
    for case in GOLDEN["verdicts"]:
        assert parse_verdict(case["judgment"], STRICT_RULES).label == case["get_score"], case
        # the official loop asks again only when the reply holds no [[...]] label at all
        assert (_LABEL.search(case["judgment"]) is None) is case["retried"], case
