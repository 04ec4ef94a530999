"""Sequence-valued metrics of MEGA-Bench (official semantics, quirks included).

Lists are read with the shared `str_to_list` conversion: "1 2 3" is one element, quoted and unquoted
numbers differ, comparisons are case-sensitive unless the name says otherwise.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from vlmscope.metrics.megabench.conversions import longest_common_prefix, str_to_list


def longest_common_list_prefix_ratio(response: Any, target: Any) -> float:
    """Length of the common prefix over the target length (extra predicted items are free)."""
    responses = str_to_list(response)
    targets = str_to_list(target)
    return len(longest_common_prefix(responses, targets)) / len(targets)


def sequence_equality(response: Any, target: Any) -> int:
    """1 iff both sides give the same list (the response is `str()`-ed first)."""
    response = response if isinstance(response, str) else str(response)
    return 1 if str_to_list(response) == str_to_list(target) else 0


def sequence_equality_case_insensitive(response: Any, target: Any) -> int:
    """Lower-cased list equality; a non-string target element raises (scored 0)."""
    response = response if isinstance(response, str) else str(response)
    responses = [
        item.lower() if isinstance(item, str) else str(item) for item in str_to_list(response)
    ]
    targets = [item.lower() for item in str_to_list(target)]
    return 1 if responses == targets else 0


def sequence_accuracy_case_insensitive(response: Any, target: Any) -> float:
    """Share of positions that agree (strings case-insensitively, numbers by ==); lengths must
    match. A non-string predicted item against a string target raises (scored 0)."""
    responses = str_to_list(response)
    targets = str_to_list(target)
    if len(targets) != len(responses):
        return 0
    correct = 0
    for predicted, expected in zip(responses, targets, strict=False):
        if isinstance(expected, str):
            correct += predicted.lower() == expected.lower()
        elif isinstance(expected, Number) and isinstance(predicted, Number):
            correct += predicted == expected
    return correct / len(targets)
