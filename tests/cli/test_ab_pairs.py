"""The benchmarks' A B A B turns (`benchmarks/ab_pairs.py`): the reference runs first in every
pair, the two sides alternate, and each pair's line is printed as the scripts always printed it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from ab_pairs import alternate, process_pairs  # noqa: E402


def test_sides_alternate_reference_first_and_each_pair_is_printed_after_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    order: list[str] = []

    def side(name: str) -> int:
        order.append(name)
        return len(order)

    results = alternate(
        3, lambda: side("A"), lambda: side("B"), lambda a, b: f"{a}-{b} after {''.join(order)}"
    )
    assert order == ["A", "B"] * 3
    assert results == [(1, 2), (3, 4), (5, 6)]
    assert capsys.readouterr().out.splitlines() == [
        "  pair 1: 1-2 after AB",
        "  pair 2: 3-4 after ABAB",
        "  pair 3: 5-6 after ABABAB",
    ]


def test_process_pairs_print_wall_cpu_and_the_wall_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    turns = iter([(12.5, 3.25), (2.5, 1.0), (10.0, 4.0), (4.0, 2.0)])
    rounds = process_pairs(2, "official", lambda: next(turns), lambda: next(turns), lambda: "load")
    assert rounds == [(12.5, 3.25, 2.5, 1.0), (10.0, 4.0, 4.0, 2.0)]
    assert capsys.readouterr().out.splitlines() == [
        "  pair 1: official  12.50 s (cpu   3.25), vlmscope  2.50 s (cpu  1.00):  5.0x; load",
        "  pair 2: official  10.00 s (cpu   4.00), vlmscope  4.00 s (cpu  2.00):  2.5x; load",
    ]
