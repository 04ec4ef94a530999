"""A B A B: how the benchmarks that time a reference against vlmscope take their turns.

Each pair runs the reference, then ours, back to back, so that a change in the machine's load
(other jobs on shared cores) falls on both sides of a pair alike; each pair's figures are
printed as soon as both have run (with the load then), and the scripts report medians over the
pairs, of each side and of the pair ratios.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

Theirs = TypeVar("Theirs")
Ours = TypeVar("Ours")


def alternate(
    pairs: int,
    theirs: Callable[[], Theirs],
    ours: Callable[[], Ours],
    line: Callable[[Theirs, Ours], str],
) -> list[tuple[Theirs, Ours]]:
    """(the reference's result, ours) of each of `pairs` turns, reference first; after each
    turn prints `  pair N: ` and `line` of the two (flushed: a long run shows where it is)."""
    results = []
    for pair in range(pairs):
        reference = theirs()
        mine = ours()
        results.append((reference, mine))
        print(f"  pair {pair + 1}: {line(reference, mine)}", flush=True)
    return results


def process_pairs(
    pairs: int,
    name: str,
    theirs: Callable[[], tuple[float, float]],
    ours: Callable[[], tuple[float, float]],
    load: Callable[[], str],
) -> list[tuple[float, float, float, float]]:
    """(reference wall, its CPU, our wall, our CPU) seconds of each turn of two whole
    processes, each side given as (wall, CPU) seconds of one run; `name` names the reference
    in the printed line, beside its wall-clock ratio to ours and `load` at the end of the pair."""

    def line(reference: tuple[float, float], mine: tuple[float, float]) -> str:
        return (
            f"{name} {reference[0]:6.2f} s (cpu {reference[1]:6.2f}), "
            f"vlmscope {mine[0]:5.2f} s (cpu {mine[1]:5.2f}): "
            f"{reference[0] / mine[0]:4.1f}x; {load()}"
        )

    return [(*reference, *mine) for reference, mine in alternate(pairs, theirs, ours, line)]
