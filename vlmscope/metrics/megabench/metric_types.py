"""Every metric name a MEGA-Bench task can use, mapped to its function, imported on first use.

A metric takes one of three kinds of inputs, which is how the official evaluator dispatches:
- `TARGET`: `(prediction, ground truth)` - most metrics;
- `EVAL_CONTEXT`: `(prediction, eval_context)` - planning, program judge, point-in-box,
  constrained generation (which receives the whole parsed response);
- `JUDGE`: scored from an LLM judge's reply (`gpt_4o_as_judge`; `ascii_art_gpt4o_judge` needs a
  reply only when its offline branch does not decide).
Names are matched lower-cased. No metric (None) and `unsupported` give -1, which the aggregation
ignores; any other name is an error (`UnknownMetricError`), as the official `MetricType.from_string`
raises on it: a typo in a task's `metric_info` must not quietly leave a field unscored.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

_PACKAGE = "vlmscope.metrics.megabench"


class Inputs(Enum):
    TARGET = "target"
    EVAL_CONTEXT = "eval_context"
    JUDGE = "judge"


@dataclass(frozen=True)
class MetricSpec:
    module: str
    function: str
    inputs: Inputs = Inputs.TARGET
    returns_info: bool = False


_TARGET_METRICS = {
    "string_match": (
        "exact_str_match",
        "simple_str_match",
        "exact_str_match_case_insensitive",
        "code_result_exact_str_match",
        "multi_ref_phrase",
        "normalized_similarity_damerau_levenshtein",
        "near_str_match",
    ),
    "dict_match": (
        "dict_exact_str_match_agg_recall",
        "dict_precision",
        "dict_equality",
        "dict_jaccard_agg_jaccard",
        "dict_set_equality_agg_jaccard",
        "dict_nbbox_iou_tuple_agg_jaccard",
    ),
    "set_match": (
        "set_equality",
        "set_equality_case_insensitive",
        "str_set_equality_line_break",
        "str_set_equality_comma",
        "set_precision",
        "jaccard_index",
        "jaccard_index_case_insensitive",
        "chess_move_list_jaccard_index",
    ),
    "sequence_match": (
        "longest_common_list_prefix_ratio",
        "sequence_equality",
        "sequence_equality_case_insensitive",
        "sequence_accuracy_case_insensitive",
    ),
    "numeric": (
        "number_rel_diff_ratio",
        "positive_int_match",
        "normalized_rmse",
        "angle_seq_float_rmse",
        "general_single_numerical_match",
        "boxed_single_numerical_match",
    ),
    "latex": ("latex_expr_equality", "text_with_latex_expr_equality"),
    "spatial": (
        "nbbox_iou_tuple",
        "nbbox_iou_single",
        "nbbox_iou_sequence",
        "xml_nbbox_iou_single",
        "xml_norm_point_distance",
        "sequence_coords_similarity",
    ),
    "text_overlap": ("bleu", "gleu_cn"),
    "external": (
        "nli_entailment",
        "geo_proximity_location_dict",
        "ascii_art_gpt4o_judge",
        "unsupported",
    ),
}

METRICS: dict[str, MetricSpec] = {
    name: MetricSpec(module, name) for module, names in _TARGET_METRICS.items() for name in names
}
METRICS.update(
    {
        "symbolic_planning_test": MetricSpec(
            "planning", "symbolic_planning_test", Inputs.EVAL_CONTEXT
        ),
        "program_judge": MetricSpec("program_judge", "program_judge", Inputs.EVAL_CONTEXT),
        "xml_norm_point_in_bbox": MetricSpec(
            "spatial", "xml_norm_point_in_bbox", Inputs.EVAL_CONTEXT, returns_info=True
        ),
        "constrained_generation": MetricSpec(
            "constrained_generation", "constrained_generation", Inputs.EVAL_CONTEXT, True
        ),
        "gpt_4o_as_judge": MetricSpec("judge", "parse_judge_score", Inputs.JUDGE),
    }
)

LLM_JUDGED = frozenset({"gpt_4o_as_judge", "ascii_art_gpt4o_judge"})


def eval_type_of(metric_info: Mapping[str, Any]) -> str:
    """ "llm" when a field metric is an LLM judge, else "rule" (aux metrics do not count)."""
    names = metric_info.get("field_score_function", {}).values()
    return "llm" if any(name in LLM_JUDGED for name in names) else "rule"


class UnknownMetricError(ValueError):
    """A metric name that is not registered (the official evaluator raises on it too)."""


def resolve_name(name: str | None) -> str:
    """The registered name for a task's metric name (lower-cased); None -> unsupported."""
    if name is None:
        return "unsupported"
    if not isinstance(name, str) or name.lower() not in METRICS:
        raise UnknownMetricError(f"unknown MEGA-Bench metric {name!r}")
    return name.lower()


def unknown_metrics(metric_info: Mapping[str, Any]) -> dict[str, Any]:
    """Field (or auxiliary field) -> metric name, for every name of a task's `metric_info` that
    `resolve_name` would reject; empty when every name is known."""
    named: dict[str, Any] = {}
    for key in ("field_score_function", "global_aux_metrics"):
        block = metric_info.get(key) or {}
        named.update(block.items() if isinstance(block, Mapping) else {key: block}.items())
    unknown = {}
    for field, name in named.items():
        try:
            resolve_name(name)
        except UnknownMetricError:
            unknown[field] = name
    return unknown


@cache
def metric_function(name: str) -> Callable[..., Any]:
    """The metric's function, importing its module on first use."""
    spec = METRICS[resolve_name(name)]
    return getattr(importlib.import_module(f"{_PACKAGE}.{spec.module}"), spec.function)


def metric_spec(name: str) -> MetricSpec:
    return METRICS[resolve_name(name)]
