"""Score one MEGA-Bench query: parse the raw response, score every answer field, aggregate.

This mirrors the official evaluator's per-query step (task aggregation is built on top of it):
1. parse with the task's `response_parse_function`; single-field parsers need exactly one answer
   field (names starting with "##" are not answer fields) and cut at blank lines only when that
   field's ground truth is a single line; a failed `json` parse gives every field the raw response;
2. score every field of the ground-truth answer dict that has a metric (others are ignored), after
   unquoting the ground truth once; then the task's `global_aux_metrics`, which see the whole parsed
   dict and the whole answer dict;
3. aggregate the field scores with the task's `aggregation`.
Where the official evaluator would crash on the response (a rule metric on a `dummy`-parsed
string, a point-in-box metric that raises, a global aux metric over a `dummy`-parsed string), the
field scores 0 and the error is recorded instead.
A metric name the registry does not know is bad data, not a bad response: it raises
`UnknownMetricError` as officially (MEGA-Bench rows are checked for it when read).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vlmscope.metrics.megabench.fields import (
    METRIC_ERROR,
    FieldScore,
    aggregate_fields,
    score_field,
)
from vlmscope.metrics.megabench.judge import build_judge_content
from vlmscope.metrics.megabench.metric_types import Inputs, eval_type_of, metric_spec, resolve_name
from vlmscope.metrics.megabench.parsing import (
    SINGLE_FIELD_PARSE_TYPES,
    literal_as_string,
    parse_response,
)


@dataclass(frozen=True)
class QueryScore:
    """Everything one query contributes.

    field_scores: field name -> score as the official scorer records it (metric errors score 0,
        unparseable or missing judge verdicts score 0; fields without a metric are absent).
    query_score: the aggregated score (-1 when every field score is negative).
    parsed_answer: the parser output (a dict of field -> prediction, or the whole string for `dummy`).
    field_errors: field name -> "ExceptionType: message" for metrics that raised (scored 0 for parity).
    field_outcomes: field name -> outcome label ("scored", "metric_error", "parse_error",
        "judge_unparseable", "judge_missing").
    field_info: field name -> extra info some metrics return (constrained generation, point-in-box,
        judge explanation).
    eval_type: "llm" if any field is judged by an LLM, else "rule".
    parse_failed: a `json` task whose response held no non-empty dict (fields got the raw response),
        or a parser that raised (every field then has outcome "parse_error").
    """

    field_scores: Mapping[str, float]
    query_score: float
    parsed_answer: Any
    field_errors: Mapping[str, str] = field(default_factory=dict)
    field_outcomes: Mapping[str, str] = field(default_factory=dict)
    field_info: Mapping[str, Any] = field(default_factory=dict)
    eval_type: str = "rule"
    parse_failed: bool = False


PARSE_ERROR = "parse_error"


@dataclass(frozen=True)
class ParsedResponse:
    """The parser output; `failed` for a json parse that found no dict; `error` when the parser
    itself raised (the official evaluator would stop; here every field scores 0 with the error)."""

    value: Any
    failed: bool = False
    error: str | None = None


def parse_query_response(
    metric_info: Mapping[str, Any], correct_answer: Mapping[str, Any], response: str | None
) -> ParsedResponse:
    """Step 1 of the module docstring."""
    parse_type = metric_info.get("response_parse_function") or "unsupported"
    if parse_type in SINGLE_FIELD_PARSE_TYPES:
        answer_fields = [name for name in correct_answer if not name.startswith("##")]
        if len(answer_fields) != 1:
            raise ValueError(f"{parse_type} needs exactly one answer field, got {answer_fields}")
        answer_key = answer_fields[0]
        single_line = "\n" not in correct_answer[answer_key]
        try:
            parsed = parse_response(
                parse_type, response, answer_key=answer_key, is_single_line_ans=single_line
            )
        except Exception as error:
            return ParsedResponse(None, failed=True, error=f"{type(error).__name__}: {error}")
        return ParsedResponse(parsed)
    try:
        parsed = parse_response(parse_type, response)
    except Exception as error:
        return ParsedResponse(None, failed=True, error=f"{type(error).__name__}: {error}")
    if parse_type == "json" and (not isinstance(parsed, dict) or not parsed):
        return ParsedResponse({name: response for name in correct_answer}, failed=True)
    return ParsedResponse(parsed)


def _prediction_for(name: str, parsed: Any, field_name: str) -> Any:
    spec = metric_spec(name)
    if name == "constrained_generation":
        return parsed
    if spec.inputs is Inputs.JUDGE and not isinstance(parsed, dict):
        return parsed
    return parsed.get(field_name)


def _score_one(
    metric_name: str | None,
    parsed: Any,
    field_name: str,
    ground_truth: Any,
    *,
    eval_context: Mapping[str, Any],
    judge_reply: str | None,
    sandbox_pool: Any,
) -> FieldScore:
    name = resolve_name(metric_name)
    try:
        prediction = _prediction_for(name, parsed, field_name)
    except Exception as error:
        return FieldScore(0, None, f"{type(error).__name__}: {error}", METRIC_ERROR)
    return score_field(
        name,
        prediction,
        literal_as_string(ground_truth),
        eval_context=eval_context,
        judge_reply=judge_reply,
        sandbox_pool=sandbox_pool,
    )


def score_query(
    *,
    task_name: str,
    metric_info: Mapping[str, Any],
    eval_context: Mapping[str, Any],
    correct_answer: Mapping[str, Any],
    response: str | None,
    query_text: str,
    global_description: str,
    judge_replies: Mapping[str, str] | None = None,
    sandbox_pool: Any = None,
) -> QueryScore:
    """Score one query exactly as the official evaluator does.

    `judge_replies` maps a judged field name to the judge model's raw reply (see
    `build_judge_requests`); judged fields without a reply get outcome "judge_missing" and score 0.
    `sandbox_pool` (a `vlmscope.sandbox.SandboxPool`) replaces the shared pool for `program_judge`.
    `task_name` and `global_description` identify the query for callers; the official scoring does
    not depend on them.
    """
    parsed = parse_query_response(metric_info, correct_answer, response)
    field_metrics = metric_info.get("field_score_function", {})
    replies = judge_replies or {}
    # (field, metric, scored value, truth, the official crash that stops it before scoring)
    to_score: list[tuple[str, str | None, Any, Any, str | None]] = [
        (name, field_metrics.get(name), parsed.value, truth, None)
        for name, truth in correct_answer.items()
    ]
    aux_metrics = metric_info.get("global_aux_metrics", {})
    if aux_metrics:
        whole = copy.deepcopy(parsed.value)
        refused = _aux_assignment_error(parsed.value)
        for name, metric in aux_metrics.items():
            to_score.append((name, metric, {name: whole}, dict(correct_answer), refused))
    results: dict[str, FieldScore] = {}
    for name, metric, source, truth, crash in to_score:
        if resolve_name(metric) == "unsupported":
            continue
        if parsed.error is not None:
            results[name] = FieldScore(0, None, parsed.error, PARSE_ERROR)
            continue
        if crash is not None:
            results[name] = FieldScore(0, None, crash, METRIC_ERROR)
            continue
        results[name] = _score_one(
            metric,
            source,
            name,
            truth,
            eval_context=eval_context,
            judge_reply=replies.get(name),
            sandbox_pool=sandbox_pool,
        )
    aggregation = metric_info.get("aggregation", {})
    field_scores = {name: result.score for name, result in results.items()}
    return QueryScore(
        field_scores=field_scores,
        query_score=aggregate_fields(
            aggregation.get("function"), field_scores, aggregation.get("field_weights", {})
        ),
        parsed_answer=parsed.value,
        field_errors={name: r.error for name, r in results.items() if r.error is not None},
        field_outcomes={name: result.outcome for name, result in results.items()},
        field_info={name: r.info for name, r in results.items() if r.info is not None},
        eval_type=eval_type_of(metric_info),
        parse_failed=parsed.failed,
    )


def _aux_assignment_error(parsed_value: Any) -> str | None:
    """The error the official evaluator meets before scoring a global aux field, if any.

    It first stores the field into the parsed response (`response_obj[field] = ...`); a parsed value
    that is not a dict (a `dummy`-parsed string) refuses that and the official run stops. Here the
    aux field scores 0 with that error instead, as with the other official crashes.
    """
    try:
        copy.copy(parsed_value)["##aux"] = None
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def build_judge_requests(
    *,
    metric_info: Mapping[str, Any],
    eval_context: Mapping[str, Any],
    correct_answer: Mapping[str, Any],
    response: str | None,
    query_text: str,
    image_contents: tuple[Mapping[str, Any], ...] = (),
) -> dict[str, list[dict[str, Any]]]:
    """The judge request content for every `gpt_4o_as_judge` field of a query (send each to the
    judge, then pass the replies to `score_query(judge_replies=...)`)."""
    parsed = parse_query_response(metric_info, correct_answer, response).value
    field_metrics = metric_info.get("field_score_function", {})
    requests: dict[str, list[dict[str, Any]]] = {}
    for name in correct_answer:
        if resolve_name(field_metrics.get(name)) != "gpt_4o_as_judge":
            continue
        requests[name] = build_judge_content(
            metric_info["gpt4o_eval_configs"],
            reference=correct_answer,
            response=parsed.get(name) if isinstance(parsed, dict) else parsed,
            question=query_text,
            eval_context=eval_context,
            image_contents=image_contents,
        )
    return requests
