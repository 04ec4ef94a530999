"""MEGA-Bench's LLM-judge fields (`gpt_4o_as_judge`): request assembly and verdict parsing.

The request is built from the task's `metric_info["gpt4o_eval_configs"]` exactly as officially: one
user turn holding the query images (only when `judge_model_type == "with image"`) followed by the
`eval_criteria_prompt` formatted with `template_mapping` (`model_output` -> the parsed prediction,
`example_question` -> the query text, `answers.<key>` -> a ground-truth field, `eval_context.<key>`).
Sending it (model gpt-4o-2024-08-06, temperature 0 officially) is the shared judge client's job.

The verdict is the first `**Score**: N` (N/10, no clipping). A reply without one scores 0 for parity
and is reported with outcome `judge_unparseable`, so callers can count and show it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SCORE_PATTERN = re.compile(r"\*\*Score\*\*\s*:\s*(\d+)")
EXPLANATION_PATTERN = re.compile(r"\*\*Score explanation\*\*\s*:\s*(.*)", re.DOTALL)
SCORED = "scored"
JUDGE_UNPARSEABLE = "judge_unparseable"
JUDGE_MISSING = "judge_missing"


@dataclass(frozen=True)
class JudgeVerdict:
    """A parsed judge reply: score in [0, 1] (officially unclipped), the official info string and
    the outcome (`scored` or `judge_unparseable`)."""

    score: float
    info: str
    outcome: str


def parse_judge_score(reply: str) -> JudgeVerdict:
    """First `**Score**: N` -> N/10; no score -> 0 with outcome `judge_unparseable`."""
    score_match = SCORE_PATTERN.search(reply)
    if score_match is None:
        return JudgeVerdict(0, f"Score is NULL: {reply};", JUDGE_UNPARSEABLE)
    explanation_match = EXPLANATION_PATTERN.search(reply)
    explanation = explanation_match.group(1).strip() if explanation_match else ""
    score = int(score_match.group(1))
    return JudgeVerdict(score / 10.0, f"Score: {score}; Explanation: {explanation}", SCORED)


def _template_values(
    template_mapping: Mapping[str, str],
    *,
    reference: Mapping[str, Any],
    response: Any,
    question: str,
    eval_context: Mapping[str, Any] | None,
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for placeholder, source in template_mapping.items():
        kind, _, key = source.partition(".")
        key = key.split(".")[0]
        if source == "model_output":
            values[placeholder] = response
        elif source == "example_question":
            values[placeholder] = question
        elif kind == "answers":
            values[placeholder] = reference[key]
        elif kind == "eval_context":
            values[placeholder] = (eval_context or {})[key]
    return values


def build_judge_content(
    metric_config: Mapping[str, Any],
    *,
    reference: Mapping[str, Any],
    response: Any,
    question: str,
    eval_context: Mapping[str, Any] | None = None,
    image_contents: Sequence[Mapping[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The judge's user-turn content list: images (for "with image" judges), then the prompt text.

    `image_contents` are the query images already encoded as chat content items.
    """
    content: list[dict[str, Any]] = []
    if metric_config["judge_model_type"] == "with image":
        content.extend(dict(item) for item in image_contents)
    values = _template_values(
        metric_config["template_mapping"],
        reference=reference,
        response=response,
        question=question,
        eval_context=eval_context,
    )
    content.append({"type": "text", "text": metric_config["eval_criteria_prompt"].format(**values)})
    return content
