"""Field scoring and field -> query aggregation with the official MEGA-Bench semantics.

`score_field` runs one metric the way the official evaluator dispatches it. Any exception inside a
metric scores 0, as officially, but the error is kept (`FieldScore.error`, outcome `metric_error`)
so it can be counted. Judge-scored fields take the judge's reply: no reply gives outcome
`judge_missing`, a reply without a score `judge_unparseable`; both score 0.

`aggregate_fields`: `mean` is numpy's weighted average over the non-negative field scores, `min` the
smallest non-negative score; no non-negative score (or another function) gives -1. NaN scores fail
the `>= 0` test and are dropped, as officially.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vlmscope.metrics.megabench.external import ascii_art_needs_judge, ascii_art_verdict
from vlmscope.metrics.megabench.judge import (
    JUDGE_MISSING,
    SCORED,
    parse_judge_score,
)
from vlmscope.metrics.megabench.metric_types import (
    Inputs,
    metric_function,
    metric_spec,
    resolve_name,
)

METRIC_ERROR = "metric_error"


@dataclass(frozen=True)
class FieldScore:
    """One field's score as the official evaluator records it, plus what happened."""

    score: Any
    info: Any = None
    error: str | None = None
    outcome: str = SCORED


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _judged(judge_reply: str | None) -> FieldScore:
    if judge_reply is None:
        return FieldScore(0, None, None, JUDGE_MISSING)
    verdict = parse_judge_score(judge_reply)
    return FieldScore(verdict.score, verdict.info, None, verdict.outcome)


def score_field(
    metric_name: str | None,
    prediction: Any,
    ground_truth: Any,
    *,
    eval_context: Mapping[str, Any] | None = None,
    judge_reply: str | None = None,
    sandbox_pool: Any = None,
) -> FieldScore:
    """Score one field. `prediction` is what the official evaluator hands the metric (for
    constrained generation: the whole parsed response); `sandbox_pool` optionally replaces the
    shared `vlmscope.sandbox` pool for `program_judge`."""
    name = resolve_name(metric_name)
    spec = metric_spec(name)
    if spec.inputs is Inputs.JUDGE:
        return _judged(judge_reply)
    if name == "ascii_art_gpt4o_judge" and ascii_art_needs_judge(prediction, ground_truth):
        if judge_reply is None:
            return FieldScore(0, None, None, JUDGE_MISSING)
        return FieldScore(ascii_art_verdict(judge_reply))
    function = metric_function(name)
    try:
        if spec.inputs is Inputs.EVAL_CONTEXT:
            extra = {"pool": sandbox_pool} if name == "program_judge" and sandbox_pool else {}
            result = function(prediction, eval_context, **extra)
        else:
            result = function(prediction, ground_truth)
    except Exception as error:
        return FieldScore(0, None, _describe(error), METRIC_ERROR)
    if spec.returns_info:
        score, info = result
        return FieldScore(score, info)
    return FieldScore(result)


def aggregate_fields(
    function: str | None, field_scores: Mapping[str, Any], field_weights: Mapping[str, Any]
) -> float:
    """Query score from field scores (official `mean` / `min` aggregation).

    As the official `AggregationType.from_string`: the name is lower-cased (`MIN` is `min`), no
    name is `unsupported`, which gives -1 without looking at the scores, and any other name is an
    error (the official evaluation stops there)."""
    name = "unsupported" if function is None else function.lower()
    if name not in ("mean", "min", "unsupported"):
        raise ValueError(f"unknown field aggregation {function!r} (mean, min or unsupported)")
    if name == "unsupported":
        return -1
    kept = {field: score for field, score in field_scores.items() if score >= 0}
    if not kept:
        return -1
    if name == "min":
        return float(min(kept.values()))
    weights = [field_weights[field] for field in kept]
    return float(np.average(list(kept.values()), weights=weights))
