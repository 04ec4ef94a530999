"""Atomic-question analysis (SimpleVQA paper, atomic facts): why did the model get it wrong?

Each item also has an atomic question: the simplest question about the depicted entity (what is
the object in the picture?). Pairing the grades of the original and atomic questions of the same
item splits the failures of the original question:
- perception failure: the atomic question fails too, so the model did not recognise the entity;
- knowledge or reasoning failure: the atomic question is answered, only the original fails.
"Fails" means not Correct (Incorrect or Not attempted). Items where either grade is missing
(unparseable, failed request, no atomic question) are not paired and are counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlmscope.tracks.simplevqa.grading import Grade

CELLS: tuple[str, ...] = (
    "both_correct",
    "knowledge_or_reasoning_failure",
    "perception_failure",
    "atomic_only_failure",
)


def atomic_cell(original: Grade, atomic: Grade) -> str:
    """The 2x2 cell of one paired item."""
    original_ok, atomic_ok = original is Grade.CORRECT, atomic is Grade.CORRECT
    if original_ok:
        return "both_correct" if atomic_ok else "atomic_only_failure"
    return "knowledge_or_reasoning_failure" if atomic_ok else "perception_failure"


def atomic_analysis(pairs: Sequence[tuple[Grade, Grade]], *, unpaired: int = 0) -> dict[str, Any]:
    """Accuracy on original vs atomic questions and the 2x2 table, over graded pairs.

    `pairs` holds (original grade, atomic grade) for items graded on both; the accuracies are
    None when there is no pair (nothing to rate); shares of the two failure kinds are over the
    original question's failures (0 when there are none).
    """
    for original, atomic in pairs:
        if Grade.UNPARSEABLE in (original, atomic):
            raise ValueError("unparseable grades are not paired; count them in `unpaired`")
    counts = dict.fromkeys(CELLS, 0)
    for original, atomic in pairs:
        counts[atomic_cell(original, atomic)] += 1
    n = len(pairs)
    failures = counts["knowledge_or_reasoning_failure"] + counts["perception_failure"]
    return {
        "n_pairs": n,
        "n_unpaired": unpaired,
        "original_accuracy": _share(counts["both_correct"] + counts["atomic_only_failure"], n)
        if n
        else None,
        "atomic_accuracy": _share(
            counts["both_correct"] + counts["knowledge_or_reasoning_failure"], n
        )
        if n
        else None,
        "table": {
            "original_correct": {
                "atomic_correct": counts["both_correct"],
                "atomic_failed": counts["atomic_only_failure"],
            },
            "original_failed": {
                "atomic_correct": counts["knowledge_or_reasoning_failure"],
                "atomic_failed": counts["perception_failure"],
            },
        },
        "cells": counts,
        "original_failures": failures,
        "perception_failure_share": _share(counts["perception_failure"], failures),
        "knowledge_or_reasoning_failure_share": _share(
            counts["knowledge_or_reasoning_failure"], failures
        ),
    }


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0
