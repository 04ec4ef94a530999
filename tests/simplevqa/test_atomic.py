"""Atomic-question analysis: the 2x2 table separates perception from knowledge failures."""

from __future__ import annotations

import pytest

from vlmscope.tracks.simplevqa.atomic import atomic_analysis, atomic_cell
from vlmscope.tracks.simplevqa.grading import Grade

C, W, N, U = Grade.CORRECT, Grade.INCORRECT, Grade.NOT_ATTEMPTED, Grade.UNPARSEABLE  # W: wrong


def test_cells() -> None:
    assert atomic_cell(C, C) == "both_correct"
    assert atomic_cell(W, C) == "knowledge_or_reasoning_failure"
    assert atomic_cell(N, W) == "perception_failure"
    assert atomic_cell(C, N) == "atomic_only_failure"


def test_table_and_rates() -> None:
    pairs = [(C, C), (C, C), (W, C), (N, C), (W, W), (C, N)]
    result = atomic_analysis(pairs, unpaired=2)
    assert result["n_pairs"] == 6 and result["n_unpaired"] == 2
    assert result["original_accuracy"] == pytest.approx(3 / 6)
    assert result["atomic_accuracy"] == pytest.approx(4 / 6)
    assert result["table"] == {
        "original_correct": {"atomic_correct": 2, "atomic_failed": 1},
        "original_failed": {"atomic_correct": 2, "atomic_failed": 1},
    }
    assert result["original_failures"] == 3
    assert result["perception_failure_share"] == pytest.approx(1 / 3)
    assert result["knowledge_or_reasoning_failure_share"] == pytest.approx(2 / 3)


def test_no_pairs() -> None:
    result = atomic_analysis([], unpaired=3)
    assert result["original_accuracy"] is None and result["atomic_accuracy"] is None
    assert result["perception_failure_share"] == 0.0


def test_unparseable_grades_cannot_be_paired() -> None:
    with pytest.raises(ValueError, match="unpaired"):
        atomic_analysis([(C, U)])
