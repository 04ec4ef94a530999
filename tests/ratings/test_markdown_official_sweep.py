"""Markdown style counts against the official code on swept inputs (official_sweep/README.md):
the counting functions on adversarial texts, and the metadata each official pipeline builds
from an answer: FastChat's `add_markdown_info.py` (a battle's assistant turns joined with
newlines), arena-hard v2 / v0.1 (one answer), ProBench's `show_result.py` (turns joined with
spaces; the model's tokens stripped, its markdown not). Key order is compared too: it is the
order the style features are read in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vlmscope.judges.markdown import (
    CODE_BLOCK_PATTERN,
    answer_style_counts,
    count_markdown_elements,
    remove_pattern,
)
from vlmscope.messages import Response
from vlmscope.tracks.pairwise import _style as pairwise_style
from vlmscope.tracks.probench.answer_style import baseline_answer_style, model_answer_style
from vlmscope.tracks.visionarena.conversations import conversation
from vlmscope.tracks.visionarena.rows import BattleRow, conv_metadata

CASES_FILE = Path(__file__).resolve().parent / "official_sweep" / "markdown_style_cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines()]
MARKDOWN_KEYS = ("header_count", "list_count", "bold_count")


def ordered(value: Any) -> Any:
    """Nested dicts as lists of pairs, so that equality also checks key order."""
    if isinstance(value, dict):
        return [(k, ordered(v)) for k, v in value.items()]
    return value


def battle(inputs: dict[str, Any]) -> BattleRow:
    return BattleRow(
        question_id="q",
        model_a="a",
        model_b="b",
        winner="tie",
        conversation_a=conversation(inputs["conversation_a"], "case", "conversation_a"),
        conversation_b=conversation(inputs["conversation_b"], "case", "conversation_b"),
        images=(),
        language="English",
        turn=1,
        categories={},
        is_preset=False,
        anony=True,
        judge="j",
        tstamp=0.0,
        conv_metadata=None,
    )


def ours(case: dict[str, Any]) -> Any:
    kind, inputs = case["kind"], case["inputs"]
    if kind == "answer_style_counts":
        removed = remove_pattern(inputs["text"], CODE_BLOCK_PATTERN)
        assert answer_style_counts(inputs["text"]) == count_markdown_elements(removed)
        return {"after_code_removal": removed, "counts": count_markdown_elements(removed)}
    if kind == "fastchat_conv_metadata":
        meta = conv_metadata(battle(inputs))
        return {k: v for k, v in meta.items() if k.startswith(MARKDOWN_KEYS)}
    if kind in ("arena_hard_v2_metadata", "arena_hard_v01_metadata"):
        # Tokens as the official pipeline was run here: whitespace words, what we count when
        # the backend reports none.
        return pairwise_style(Response(text=inputs["answer"]))
    if kind == "probench_model":
        return model_answer_style(inputs["turns"], "words")
    if kind == "probench_baseline":
        return baseline_answer_style(inputs["turns"], "words")
    raise AssertionError(f"{CASES_FILE.name}: case {case['id']}: unknown kind {kind!r}")


def test_the_cases_cover_every_pipeline() -> None:
    assert {c["kind"] for c in CASES} == {
        "answer_style_counts",
        "fastchat_conv_metadata",
        "arena_hard_v2_metadata",
        "arena_hard_v01_metadata",
        "probench_model",
        "probench_baseline",
    }
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_official_markdown_case(case: dict[str, Any]) -> None:
    assert ordered(ours(case)) == ordered(case["expected"])
