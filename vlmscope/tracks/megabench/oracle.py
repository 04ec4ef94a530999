"""The ground-truth oracle's reply, exactly as MEGA-Bench's sanity-check model writes it.

Official `ground_truth_oracle.py`: a fixed sentence, a blank line, then `Answer:` and the gold:
the single field's value when the answer has one field, otherwise `str()` of the whole dict.
A `multi_ref_phrase` field answers with its first reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PREFIX = "I have access to the ground truth answer, so I'll just return that.\n\nAnswer:"


def oracle_answer(answer: Mapping[str, Any], metric_info: Mapping[str, Any]) -> str:
    metrics = metric_info.get("field_score_function", {})
    gold = {
        field: _first_reference(value) if metrics.get(field) == "multi_ref_phrase" else value
        for field, value in answer.items()
    }
    value = next(iter(gold.values())) if len(gold) == 1 else gold
    return PREFIX + str(value)


def _first_reference(value: Any) -> Any:
    if isinstance(value, list | tuple) and value:
        return value[0]
    return value
