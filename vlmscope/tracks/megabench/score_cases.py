"""Compute MEGA-Bench golden cases from their inputs and compare with the official results.

A case (one JSON object per line) has `level` (metric | parse | query | judge_parse | judge_prompt |
field_aggregation), `metric`, `inputs`, `expected`, `compare` (abs_tol | exact | exact_repr | nan) and
`tolerance`. `compute_case` looks only at `level`, `metric` and `inputs` and returns a dict shaped
like `expected`; `case_passes` then compares the two.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from vlmscope.metrics.megabench.fields import aggregate_fields, score_field
from vlmscope.metrics.megabench.judge import build_judge_content, parse_judge_score
from vlmscope.metrics.megabench.metric_types import metric_spec
from vlmscope.metrics.megabench.parsing import SINGLE_FIELD_PARSE_TYPES, parse_response
from vlmscope.metrics.megabench.query import score_query
from vlmscope.tracks.megabench.aggregation import score_task

NAN_MARKER = "NaN"
DEFAULT_TOLERANCE = 1e-6


def _metric_case(metric: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    result = score_field(
        metric,
        inputs.get("response"),
        inputs.get("target"),
        eval_context=inputs.get("eval_context"),
    )
    ours: dict[str, Any] = {"score": result.score}
    if metric_spec(metric).returns_info:
        ours["info"] = result.info
    return ours


def _parse_case(inputs: Mapping[str, Any]) -> dict[str, Any]:
    parse_type = inputs["parse_type"]
    if parse_type in SINGLE_FIELD_PARSE_TYPES:
        key = inputs["answer_key"]
        parsed = parse_response(
            parse_type,
            inputs["response"],
            answer_key=key,
            is_single_line_ans=bool(inputs.get("is_single_line_ans")),
        )[key]
    else:
        parsed = parse_response(parse_type, inputs["response"])
    return {"parsed": parsed, "parsed_repr": repr(parsed), "parsed_type": type(parsed).__name__}


def _query_case(inputs: Mapping[str, Any]) -> dict[str, Any]:
    scored = score_query(
        task_name=inputs["task_name"],
        metric_info=inputs["metric_info"],
        eval_context=inputs.get("eval_context") or {},
        correct_answer=inputs["correct_answer"],
        response=inputs["response"],
        query_text=inputs.get("query_text", ""),
        global_description=inputs.get("global_description", ""),
        judge_replies=inputs.get("judge_replies"),
    )
    return {
        "field_scores": dict(scored.field_scores),
        "query_score": scored.query_score,
        "mean_task_score": score_task([scored.query_score]).mean_task_score,
        "eval_type": scored.eval_type,
    }


def _judge_parse_case(inputs: Mapping[str, Any]) -> dict[str, Any]:
    verdict = parse_judge_score(inputs["judge_output"])
    return {"score": verdict.score, "info": verdict.info}


def _judge_prompt_case(inputs: Mapping[str, Any]) -> dict[str, Any]:
    content = build_judge_content(
        inputs["metric_config"],
        reference=inputs["reference"],
        response=inputs["response"],
        question=inputs["question"],
        eval_context=inputs.get("eval_context"),
    )
    return {"content": content}


def _aggregation_case(inputs: Mapping[str, Any]) -> dict[str, Any]:
    score = aggregate_fields(inputs["function"], inputs["field_scores"], inputs["field_weights"])
    return {"query_score": score}


_BY_LEVEL: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "parse": _parse_case,
    "query": _query_case,
    "judge_parse": _judge_parse_case,
    "judge_prompt": _judge_prompt_case,
    "field_aggregation": _aggregation_case,
}


def compute_case(level: str, metric: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Our result for one case, from its inputs alone."""
    if level == "metric":
        return _metric_case(metric, inputs)
    if level not in _BY_LEVEL:
        raise ValueError(f"unknown case level {level!r}")
    return _BY_LEVEL[level](inputs)


def _is_nan(value: Any) -> bool:
    if value == NAN_MARKER:
        return True
    try:
        return math.isnan(value)
    except TypeError:
        return False


def values_close(ours: Any, expected: Any, tolerance: float) -> bool:
    """Recursive comparison: numbers within `tolerance`, "NaN" matches NaN, the rest equal."""
    if expected == NAN_MARKER or _is_nan(expected):
        return _is_nan(ours)
    if isinstance(expected, Mapping):
        return (
            isinstance(ours, Mapping)
            and set(ours) == set(expected)
            and all(values_close(ours[key], expected[key], tolerance) for key in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(ours, (list, tuple))
            and len(ours) == len(expected)
            and all(values_close(o, e, tolerance) for o, e in zip(ours, expected, strict=False))
        )
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        try:
            return abs(float(ours) - expected) <= tolerance
        except (TypeError, ValueError):
            return False
    return bool(ours == expected)


def to_jsonable(value: Any) -> Any:
    """JSON-safe copy: NaN -> "NaN", numpy scalars -> Python numbers, tuples -> lists, dict keys
    -> strings, anything else unknown -> its repr."""
    if isinstance(value, Mapping):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return NAN_MARKER
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def case_passes(case: Mapping[str, Any], ours: Mapping[str, Any]) -> bool:
    """Compare our result with the case's `expected` by its `compare` rule."""
    expected = case["expected"]
    compare = case.get("compare", "abs_tol")
    tolerance = case.get("tolerance") or DEFAULT_TOLERANCE
    if compare == "exact_repr":
        return bool(
            ours.get("parsed_repr") == expected.get("parsed_repr")
            and ours.get("parsed_type") == expected.get("parsed_type", ours.get("parsed_type"))
        )
    if compare == "exact":
        return bool(to_jsonable(ours) == expected)
    if compare == "nan":
        return all(_is_nan(ours.get(key)) for key in expected)
    return values_close(to_jsonable(ours), expected, tolerance)


def score_cases(cases: Iterable[Mapping[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """Every case with an added `ours` (computed from inputs only) and whether it passed."""
    results = []
    for case in cases:
        try:
            ours = compute_case(case["level"], case.get("metric"), case["inputs"])
        except Exception as error:
            ours = {"error": f"{type(error).__name__}: {error}"}
        passed = "error" not in ours and case_passes(case, ours)
        results.append(({**case, "ours": to_jsonable(ours)}, passed))
    return results


def read_cases(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def write_cases(path: Path, cases: Iterable[Mapping[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
