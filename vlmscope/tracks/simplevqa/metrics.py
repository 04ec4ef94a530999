"""SimpleVQA factuality metrics (paper Sec. 3; official `simpleVQA_eval.py`), as pure functions.

Over the N graded items (UNPARSEABLE grades are counted apart and never enter N):
- CO = correct / N, IN = incorrect / N, NA = not attempted / N, so CO + IN + NA = 1;
- CGA (correct given attempted) = CO / (CO + IN), 0 when nothing was attempted;
- F = 2 * CO * CGA / (CO + CGA), the harmonic mean of CO and CGA, 0 when both are 0.
With N = 0 every rate is None (JSON null), with `n_graded` 0 and a `note` saying why: a group in
which no reply could be graded has no rate, and must never read as a model scoring 0.

As the official script does, CO, IN and NA are rounded to 4 decimals first, and CGA and F are
derived from the rounded rates (attempted = round(CO + IN, 4)). That rounding is not cosmetic:
CGA and F from rounded rates can differ from the unrounded ones in the third decimal (19 correct,
32 incorrect: CGA 0.3725, not 0.37255), so the published numbers are only reproduced this way.
Every rate carries a seeded percentile bootstrap 95% CI of the same rounded statistics.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from vlmscope.tracks.simplevqa.grading import Grade

METRICS: tuple[str, ...] = ("F", "CO", "CGA", "NA", "IN")
GRADED: tuple[Grade, ...] = (Grade.CORRECT, Grade.INCORRECT, Grade.NOT_ATTEMPTED)
NO_CATEGORY = "(none)"
NO_GRADE_NOTE = "no item graded: every grader reply was unparseable or failed"
DECIMALS = 4
"""The official script's rounding of CO, IN and NA (and of attempted = CO + IN)."""


def factuality_rates(correct: int, incorrect: int, not_attempted: int) -> dict[str, float | None]:
    """CO, IN, NA, CGA and F from the three counts, as `simpleVQA_eval.py` computes them; all None
    for an empty group (no rate; the official script crashes there)."""
    n = correct + incorrect + not_attempted
    if n == 0:
        return {k: None for k in METRICS}
    co, in_, na = (round(count / n, DECIMALS) for count in (correct, incorrect, not_attempted))
    attempted = round(co + in_, DECIMALS)
    cga = co / attempted if attempted > 0 else 0.0
    f = 2 * cga * co / (cga + co) if cga + co > 0 else 0.0
    return {"F": f, "CO": co, "CGA": cga, "NA": na, "IN": in_}


def count_grades(grades: Iterable[Grade]) -> dict[Grade, int]:
    counts = dict.fromkeys(Grade, 0)
    for grade in grades:
        counts[grade] += 1
    return counts


def bootstrap_rates(
    correct: int, incorrect: int, not_attempted: int, *, rounds: int, rng: np.random.Generator
) -> dict[str, list[float]] | None:
    """Percentile 95% CI of each rate, or None for an empty group or `rounds` = 0.

    Resampling N graded items with replacement only changes the three class counts, which are
    then multinomial(N, observed shares): drawing those counts directly is the same bootstrap
    at a cost independent of N.
    """
    n = correct + incorrect + not_attempted
    if n == 0 or rounds <= 0:
        return None
    draws = rng.multinomial(n, np.array([correct, incorrect, not_attempted]) / n, size=rounds)
    co, in_, na = (np.round(draws[:, k] / n, DECIMALS) for k in range(3))
    attempted = np.round(co + in_, DECIMALS)
    cga = np.divide(co, attempted, out=np.zeros(rounds), where=attempted > 0)
    denom = cga + co
    f = np.divide(2 * cga * co, denom, out=np.zeros(rounds), where=denom > 0)
    samples = {"F": f, "CO": co, "CGA": cga, "NA": na, "IN": in_}
    return {k: [float(v) for v in np.percentile(samples[k], [2.5, 97.5])] for k in METRICS}


def factuality_table(
    grades: Sequence[Grade], *, rounds: int, rng: np.random.Generator
) -> dict[str, Any]:
    """Rates, their CIs and the counts behind them for one group of grades.

    With nothing graded the rates and `ci95` are None and `note` says why."""
    counts = count_grades(grades)
    c, i, na = (counts[g] for g in GRADED)
    table: dict[str, Any] = {
        **factuality_rates(c, i, na),
        "n_graded": c + i + na,
        "n_judge_unparseable": counts[Grade.UNPARSEABLE],
        "counts": {g.value: counts[g] for g in GRADED},
        "ci95": bootstrap_rates(c, i, na, rounds=rounds, rng=rng),
    }
    if table["n_graded"] == 0:
        table["note"] = NO_GRADE_NOTE
    return table


def group_rng(seed: int, group: str) -> np.random.Generator:
    """A generator per (seed, group name), so a group's CI does not change when others appear."""
    return np.random.default_rng([seed, zlib.crc32(group.encode("utf-8"))])


def grouped_tables(
    grades: Sequence[Grade], groups: Sequence[str], *, rounds: int, seed: int
) -> dict[str, dict[str, Any]]:
    """One factuality table per group label (sorted); an empty label is bucketed as `(none)`."""
    if len(grades) != len(groups):
        raise ValueError(f"{len(grades)} grades but {len(groups)} group labels")
    members: dict[str, list[Grade]] = {}
    for grade, group in zip(grades, groups, strict=True):
        members.setdefault(group or NO_CATEGORY, []).append(grade)
    return {
        name: factuality_table(members[name], rounds=rounds, rng=group_rng(seed, name))
        for name in sorted(members)
    }
