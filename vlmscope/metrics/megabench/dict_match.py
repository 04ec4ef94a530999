"""Dict-valued metrics of MEGA-Bench (official semantics, quirks included).

Both sides go through `cast_to_dict` (the shared JSON extractor for strings), so prose around a dict
is fine, but `{1: 'B'}` (int keys) never matches `{"1": "B"}`, and an empty target divides by zero
(raises, scored 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vlmscope.metrics.megabench.conversions import cast_to_dict
from vlmscope.metrics.megabench.set_match import jaccard_index, set_equality
from vlmscope.metrics.megabench.spatial import nbbox_iou_tuple
from vlmscope.metrics.megabench.string_match import exact_str_match


def dict_exact_str_match_agg_recall(response: Any, target: Any) -> float:
    """Mean over the *target* keys of `exact_str_match(pred.get(key), value)`."""
    responses = cast_to_dict(response)
    targets = cast_to_dict(target)
    if not isinstance(responses, dict):
        return 0
    scores = [exact_str_match(responses.get(key), value) for key, value in targets.items()]
    return sum(scores) / len(scores)


def dict_precision(response: Any, target: Any) -> float:
    """Share of predicted keys whose value exactly matches the target's value for that key."""
    responses = cast_to_dict(response)
    targets = cast_to_dict(target)
    if not isinstance(responses, dict) or not responses:
        return 0
    matched = sum(
        1
        for key, value in responses.items()
        if key in targets and exact_str_match(value, targets[key])
    )
    return matched / len(responses)


def dict_equality(response: Any, target: Any) -> int:
    """1 iff the cast dicts are equal (no value normalisation: "(C)" differs from "C")."""
    responses = cast_to_dict(response)
    if not isinstance(responses, dict):
        return 0
    return 1 if responses == cast_to_dict(target) else 0


def _mean_over_key_union(response: Any, target: Any, per_key: Callable[[Any, Any], float]) -> float:
    responses = cast_to_dict(response)
    targets = cast_to_dict(target)
    if not isinstance(responses, dict):
        return 0
    all_keys = set(responses) | set(targets)
    total = sum(per_key(responses.get(key, []), targets.get(key, [])) for key in all_keys)
    return total / len(all_keys)


def dict_jaccard_agg_jaccard(response: Any, target: Any) -> float:
    """Mean over the key union of the per-key Jaccard index (a missing side counts as [])."""
    return _mean_over_key_union(response, target, jaccard_index)


def dict_set_equality_agg_jaccard(response: Any, target: Any) -> float:
    """Mean over the key union of the per-key set equality."""
    return _mean_over_key_union(response, target, set_equality)


def dict_nbbox_iou_tuple_agg_jaccard(response: Any, target: Any) -> float:
    """Mean over the key union of the per-key tuple IoU of the boxes."""
    return _mean_over_key_union(response, target, nbbox_iou_tuple)
