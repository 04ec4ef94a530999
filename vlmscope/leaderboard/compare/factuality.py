"""SimpleVQA, compared on the same questions: CO, IN, NA, CGA and F, paired, and McNemar.

Each original question (atomic ones are not in the headline) has a grade per model: correct,
incorrect, not attempted, or none (an unreadable grader reply or a failed request), which the
track leaves out of the rates as its summary does. Over the questions both models have, the
pairs of grades form a 4 x 4 table; a bootstrap round redraws that table's counts
(`vlmscope.stats.paired_counts`: the same as redrawing questions, both models' grades together),
and every rate of both models and their differences is computed from each round. McNemar's
exact test asks whether the two are equally often correct, on the questions graded for both.
The same is done per task category and per language (each group with its own random stream,
so a group's numbers do not change when others appear). With the same questions on both sides
the point values are the two summaries' rates.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vlmscope.leaderboard.compare.alignment import align
from vlmscope.leaderboard.compare.pairs import Compared, ListTable, PairComparison, PairedNumber
from vlmscope.leaderboard.compare.source import model_details
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.stats.intervals import Interval, percentile_interval, two_sided_p
from vlmscope.stats.mcnemar import McNemar, mcnemar
from vlmscope.stats.paired_counts import resample_cells

METRICS = ("CO", "IN", "NA", "CGA", "F")
GRADES = ("correct", "incorrect", "not_attempted")
UNGRADED = len(GRADES)
"""The index of "no grade" (unreadable reply or failed request) in a model's 4 outcomes."""
SECTIONS = {"task category": "task_category", "language": "language"}
BREAKDOWN_METRICS = ("F", "CO")
METHOD = (
    "paired bootstrap over the questions both models have (the 4 x 4 table of their grades "
    "redrawn as counts), 95% percentile interval; questions without a grade are left out of "
    "that model's rates, as in its summary"
)


def grade_index(row: dict[str, Any]) -> int:
    """0-2 for correct / incorrect / not attempted, `UNGRADED` otherwise (the track's rule:
    a grade counts when the row's outcome is ok or judge_unparseable and it names one)."""
    parsed = row.get("parsed")
    if row.get("outcome") in ("ok", "judge_unparseable") and parsed in GRADES:
        return GRADES.index(parsed)
    return UNGRADED


def rates(counts: npt.NDArray[np.float64]) -> dict[str, npt.NDArray[np.float64]]:
    """CO, IN, NA, CGA, F from counts (... x 4: the three grades, then ungraded), as the
    track's metrics define them; NaN where nothing was graded."""
    c, i, na = (counts[..., k].astype(np.float64) for k in range(3))
    n = c + i + na
    with np.errstate(invalid="ignore", divide="ignore"):
        co, in_, na_ = c / n, i / n, na / n
        attempted = co + in_
        cga = np.where(attempted > 0, co / attempted, 0.0)
        f = np.where(co + cga > 0, 2 * co * cga / (co + cga), 0.0)
    graded = n > 0
    return {
        "CO": np.where(graded, co, np.nan),
        "IN": np.where(graded, in_, np.nan),
        "NA": np.where(graded, na_, np.nan),
        "CGA": np.where(graded, cga, np.nan),
        "F": np.where(graded, f, np.nan),
    }


def compare_factuality(
    store: ResultStore, track: str, models: Sequence[str], *, rounds: int, seed: int
) -> Compared:
    """Every pair of `models` (in order), track notes, and the questions each model lacks."""
    rows = {m: _originals(store, track, m) for m in models}
    alignment = align({m: list(r) for m, r in rows.items()})
    if not alignment.shared:
        raise ValueError("no question is answered by every model compared")
    first = rows[models[0]]
    comparisons = []
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            joint = [(grade_index(rows[a][k]), grade_index(rows[b][k])) for k in alignment.shared]
            groups = {
                section: [
                    str(first[k]["meta"].get(field, "")) or "(none)" for k in alignment.shared
                ]
                for section, field in SECTIONS.items()
            }
            comparisons.append(_pair(track, a, b, joint, groups, rounds, seed))
    return Compared(comparisons, list(alignment.notes("questions")), alignment.missing)


def _originals(store: ResultStore, track: str, model: str) -> dict[str, dict[str, Any]]:
    found = model_details(store, track, model, ["sample_id", "parsed", "outcome", "meta"])
    return {
        str(r["sample_id"]): r for r in found if r["meta"].get("variant", "original") == "original"
    }


def _pair(
    track: str,
    a: str,
    b: str,
    joint: list[tuple[int, int]],
    groups: dict[str, list[str]],
    rounds: int,
    seed: int,
) -> PairComparison:
    numbers = list(_numbers(joint, rounds, np.random.default_rng([seed, _crc("overall")])))
    tests: dict[str, Any] = {"mcnemar": _mcnemar(joint).to_json()}
    by_group: list[tuple[Any, ...]] = []
    for section, labels in groups.items():
        for group in sorted(set(labels)):
            members = [pair for pair, label in zip(joint, labels, strict=True) if label == group]
            rng = np.random.default_rng([seed, _crc(f"{section}:{group}")])
            for number in _numbers(members, rounds, rng):
                if number.label in BREAKDOWN_METRICS:
                    numbers.append(_in_section(number, f"{section}: {group}"))
            test = _mcnemar(members)
            by_group.append((section, group, len(members), test.only_a, test.only_b, test.p_value))
    ungraded = sum(1 for x, y in joint if UNGRADED in (x, y))
    return PairComparison(
        track=track,
        a=a,
        b=b,
        items=f"{len(joint)} questions answered by every model compared ({ungraded} without a grade for one of the two)",
        method=f"{METHOD}; {rounds} rounds, seed {seed}; difference = first model - second",
        numbers=tuple(numbers),
        tables=(
            ListTable(
                title=f"McNemar by group (correct for {a} only / for {b} only)",
                columns=("breakdown", "group", "questions", f"{a} only", f"{b} only", "p"),
                rows=tuple(by_group),
            ),
        ),
        tests=tests,
    )


def _numbers(
    joint: list[tuple[int, int]], rounds: int, rng: np.random.Generator
) -> list[PairedNumber]:
    table = np.zeros((4, 4), dtype=np.int64)
    for x, y in joint:
        table[x, y] += 1
    drawn = resample_cells(table, rounds=rounds, rng=rng).astype(np.float64)
    point_a, point_b = rates(table.sum(axis=1)), rates(table.sum(axis=0))
    round_a, round_b = rates(drawn.sum(axis=2)), rates(drawn.sum(axis=1))
    numbers = []
    for metric in METRICS:
        a, b = float(point_a[metric]), float(point_b[metric])
        diff = round_a[metric] - round_b[metric]
        if np.isnan(a) or np.isnan(b):
            numbers.append(
                PairedNumber(metric, _num(a), _num(b), None, note="nothing graded for both")
            )
            continue
        lower, upper = percentile_interval(diff)
        estimate = Interval(a - b, float(lower), float(upper), float(two_sided_p(diff)))
        numbers.append(PairedNumber(metric, a, b, estimate))
    return numbers


def _mcnemar(joint: list[tuple[int, int]]) -> McNemar:
    graded = [(x, y) for x, y in joint if UNGRADED not in (x, y)]
    only_a = sum(1 for x, y in graded if x == 0 and y != 0)
    only_b = sum(1 for x, y in graded if y == 0 and x != 0)
    return mcnemar(only_a, only_b)


def _in_section(number: PairedNumber, section: str) -> PairedNumber:
    return PairedNumber(
        number.label, number.a, number.b, number.estimate, number.unit, section, number.note
    )


def _num(value: float) -> float | None:
    return None if np.isnan(value) else value


def _crc(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))
