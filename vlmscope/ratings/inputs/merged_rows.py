"""Identical battle rows merged into unique rows with summed weights, as the fits see them.

A fit's cost grows with its rows, and FastChat-shaped battles repeat themselves (the plain
Bradley-Terry rows are (model_a, model_b, outcome) triples), so the fits work on unique rows
with weights. The battle table itself keeps every row in its order (online Elo and the
reference bootstrap streams depend on it); :class:`MergedRows` maps between the two, and
:func:`merge_identical` builds it in the order ``np.unique(axis=0)`` would, with a sort that
touches the many style columns only where the leading keys tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vlmscope.ratings.inputs.battles import FloatArray, IntArray


@dataclass(frozen=True)
class MergedRows:
    """Identical rows merged: ``first[u]`` is a representative row of unique row ``u``,
    ``inverse[i]`` the unique row of row ``i``, ``weights[u]`` the summed row weights.
    Unique rows are in lexicographic order of the key columns (first column primary),
    the order of ``np.unique(axis=0)``."""

    first: IntArray
    inverse: IntArray
    weights: FloatArray
    order: IntArray | None = None
    """All rows sorted by key (``first`` is ``order[starts]``), when merged by
    :func:`merge_identical`."""
    starts: IntArray | None = None
    """Where each unique row's run begins in ``order``."""

    @cached_property
    def _runs(self) -> tuple[IntArray, IntArray, int]:
        """Positions in ``order`` that repeat a unique row, that row, and the longest run."""
        assert self.order is not None and self.starts is not None
        repeat = np.ones(len(self.order), dtype=bool)
        repeat[self.starts] = False
        extra = np.flatnonzero(repeat)
        lengths = np.diff(np.append(self.starts, len(self.order)))
        return extra, np.cumsum(~repeat)[extra] - 1, int(lengths.max(initial=1))

    @property
    def longest_run(self) -> int:
        """The most rows merged into one unique row."""
        if self.order is None:
            return int(np.bincount(self.inverse).max(initial=1))
        return self._runs[2]

    def sum_runs(self, per_row: NDArray[Any]) -> NDArray[Any]:
        """Per unique row, the sum of ``per_row`` (indexed like the rows) over its rows, in
        ``per_row``'s type (which must hold the sums); a gather when no rows were merged."""
        if self.order is None or self.starts is None:
            return np.bincount(self.inverse, per_row, minlength=len(self.first))
        ordered = per_row[self.order]
        if len(self.starts) == len(self.order):
            return ordered
        extra, run, _ = self._runs
        if len(extra) * 8 > len(ordered):  # heavy merging: long runs, one pass
            return np.add.reduceat(ordered, self.starts)
        out = ordered[self.starts]
        np.add.at(out, run, ordered[extra])
        return out


def merge_identical(columns: Sequence[ArrayLike], weights: ArrayLike | None = None) -> MergedRows:
    """Merge rows equal in every key column, summing their weights."""
    keys = [np.asarray(c) for c in columns]
    n = keys[0].shape[0]
    order, new_group = _row_order(keys)
    group_of_sorted = np.cumsum(new_group) - 1
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = group_of_sorted
    row_weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    merged = np.bincount(inverse, row_weights, minlength=int(new_group.sum()))
    return MergedRows(
        first=order[new_group].astype(np.intp),
        inverse=inverse,
        weights=np.asarray(merged, dtype=np.float64),
        order=order,
        starts=np.flatnonzero(new_group),
    )


_LEAD_KEYS = 2


def _value_codes(key: NDArray[Any], most: int = 64) -> NDArray[Any] | None:
    """Ranks of a column's values when it takes at most ``most`` distinct ones (outcomes),
    else None. Ranks order and tie like the values."""
    values = np.unique(key[:4096])
    if len(values) > most or (len(values) and not np.isfinite(values).all()):
        return None
    codes = np.minimum(np.searchsorted(values, key), max(len(values) - 1, 0))
    return codes if np.array_equal(values[codes], key) else None


def _fold_integer_keys(keys: list[NDArray[Any]]) -> list[NDArray[Any]]:
    """Leading integer columns (and columns of a few distinct values, by rank) combined into
    one int64 key with the same order, while the product of their ranges fits (model ids and
    outcome: ``(model_a * n_models + model_b) * 3 + outcome rank``)."""
    folded: NDArray[Any] | None = None
    span, used = 1, 0
    for column in keys:
        key = column if column.dtype.kind in "iu" else _value_codes(column)
        if key is None or not len(key):
            break
        low, high = int(key.min()), int(key.max())
        width = high - low + 1
        if span * width >= 1 << 62:
            break
        shifted = key.astype(np.int64) - low
        folded = shifted if folded is None else folded * width + shifted
        span *= width
        used += 1
    return keys if folded is None or used < 2 else [folded, *keys[used:]]


def _row_order(keys: list[NDArray[Any]]) -> tuple[IntArray, NDArray[np.bool_]]:
    """``np.lexsort(keys[::-1])`` (first key primary, stable) and, in that order, where each
    group of rows equal in every key starts.

    Sorts by the leading keys, then by each further key only the runs still tied (feature
    values rarely tie, so those runs are short): the same order at a fraction of the cost
    of a full lexsort over many keys."""
    n = keys[0].shape[0]
    new_group = np.zeros(n, dtype=bool)
    if not n:
        return np.zeros(0, dtype=np.intp), new_group
    keys = _fold_integer_keys(keys)
    order = np.lexsort(keys[:_LEAD_KEYS][::-1]).astype(np.intp)
    new_group[0] = True
    for key in keys[:_LEAD_KEYS]:
        sorted_key = key[order]
        new_group[1:] |= sorted_key[1:] != sorted_key[:-1]
    for key in keys[_LEAD_KEYS:]:
        tied = ~new_group  # equal to the row before in every key so far
        in_run = tied.copy()
        in_run[:-1] |= tied[1:]  # the first row of a run too
        if not in_run.any():
            break
        positions = np.flatnonzero(in_run)
        group = np.cumsum(new_group)[positions]
        rows = order[positions]
        order[positions] = rows[np.lexsort((key[rows], group))]
        sorted_key = key[order]
        new_group[1:] |= sorted_key[1:] != sorted_key[:-1]
    return order, new_group
