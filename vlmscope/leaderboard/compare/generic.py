"""Any other track: each per-sample score's mean, paired over the samples both models have.

A track without its own comparison still has per-sample scores in its details; the comparison
is the mean of every score every compared model reports, with a paired bootstrap over samples
(the same draws for every model) and a p-value. It knows nothing of the track's own
aggregation, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vlmscope.leaderboard.compare.alignment import align
from vlmscope.leaderboard.compare.pairs import Compared, PairComparison, PairedNumber
from vlmscope.leaderboard.compare.source import model_details
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.values import is_number
from vlmscope.stats.intervals import Interval, percentile_interval, two_sided_p
from vlmscope.stats.macro_bootstrap import macro_bootstrap

METHOD = (
    "paired bootstrap over the samples every model has (the mean of each per-sample score; the "
    "track's own aggregation is not known here), 95% percentile interval"
)


def compare_generic(
    store: ResultStore, track: str, models: Sequence[str], *, rounds: int, seed: int
) -> Compared:
    scores = {
        m: {
            str(r["sample_id"]): r["scores"]
            for r in model_details(store, track, m, ["sample_id", "scores"])
        }
        for m in models
    }
    alignment = align({m: list(s) for m, s in scores.items()})
    if not alignment.shared:
        raise ValueError("no sample is scored for every model compared")
    keys = [
        key
        for key in _keys(scores[models[0]], alignment.shared)
        if all(is_number(scores[m][s].get(key)) for m in models for s in alignment.shared)
    ]
    if not keys:
        raise ValueError("no numeric score is reported for every sample of every model")
    n = len(alignment.shared)
    values = np.array(
        [[[float(scores[m][s][key]) for m in models] for s in alignment.shared] for key in keys]
    )  # keys x samples x models
    groups = np.ones((1, 1), dtype=bool)
    draws = [
        macro_bootstrap(v, [n], groups, rounds=rounds, rng=np.random.default_rng(seed))
        for v in values
    ]
    comparisons = []
    for i, a in enumerate(models):
        for j in range(i + 1, len(models)):
            numbers = []
            for key, drawn in zip(keys, draws, strict=True):
                weights = np.zeros(len(models))
                weights[i], weights[j] = 1.0, -1.0
                point, rounds_ = drawn.combine(weights)
                lower, upper = percentile_interval(rounds_[:, 0, 0])
                estimate = Interval(
                    float(point[0, 0]),
                    float(lower),
                    float(upper),
                    float(two_sided_p(rounds_[:, 0, 0])),
                )
                numbers.append(
                    PairedNumber(key, float(drawn.point[0, i]), float(drawn.point[0, j]), estimate)
                )
            comparisons.append(
                PairComparison(
                    track=track,
                    a=a,
                    b=models[j],
                    items=f"{n} samples scored for every model compared",
                    method=f"{METHOD}; {rounds} rounds, seed {seed}",
                    numbers=tuple(numbers),
                )
            )
    return Compared(comparisons, list(alignment.notes("samples")), alignment.missing)


def _keys(first: dict[str, dict[str, Any]], shared: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(k for s in shared for k, v in first[s].items() if is_number(v)))
