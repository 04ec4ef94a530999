"""Battles as numpy arrays: the one input every rating function takes.

A battle table keeps one row per battle **in the given order** (online Elo and the
reference bootstrap streams depend on the order) and names models by integer ids in
first-appearance order of ``concat(model_a, model_b)`` (pandas ``factorize``), the order
FastChat and arena-hard use. Identical rows are merged with weights only inside the fits
(:func:`merge_identical`), so per-row statistics (style standardisation, row resampling)
see the battles as recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

#: Style elements in FastChat order (``STYLE_CONTROL_ELEMENTS_V1``): the a side, then b.
STYLE_ELEMENTS_A = ("sum_assistant_a_tokens", "header_count_a", "list_count_a", "bold_count_a")
STYLE_ELEMENTS_B = ("sum_assistant_b_tokens", "header_count_b", "list_count_b", "bold_count_b")


def outcome_from_winner(winner: str) -> float:
    """Score of model_a: 1 for ``model_a``, 0 for ``model_b``, 0.5 for anything else.

    Both ``tie`` and ``tie (bothbad)`` count as half a win; only filters tell them apart.
    """
    if winner == "model_a":
        return 1.0
    if winner == "model_b":
        return 0.0
    return 0.5


def style_count(value: int | float | Mapping[str, int | float]) -> float:
    """A style element as one number: an int as is, a dict of sub-counts summed."""
    if isinstance(value, Mapping):
        return float(sum(value.values()))
    return float(value)


def factorize(
    names_a: Sequence[str], names_b: Sequence[str]
) -> tuple[tuple[str, ...], IntArray, IntArray]:
    """Model ids by first appearance in ``concat(names_a, names_b)`` (pandas ``factorize``)."""
    index: dict[str, int] = {}
    for name in list(names_a) + list(names_b):
        index.setdefault(name, len(index))
    ids_a = np.fromiter((index[n] for n in names_a), dtype=np.intp, count=len(names_a))
    ids_b = np.fromiter((index[n] for n in names_b), dtype=np.intp, count=len(names_b))
    return tuple(index), ids_a, ids_b


@dataclass(frozen=True)
class Battles:
    """Battle rows: ``model_a``/``model_b`` ids into ``models``, outcome for model_a, weights.

    ``style_a``/``style_b`` hold raw per-side style counts (n x k), e.g. the FastChat
    elements (tokens, headers, lists, bold), or ``None`` when unknown.
    """

    models: tuple[str, ...]
    model_a: IntArray
    model_b: IntArray
    outcome: FloatArray
    weights: FloatArray
    style_a: FloatArray | None = None
    style_b: FloatArray | None = None

    def __len__(self) -> int:
        return int(self.model_a.shape[0])

    @property
    def n_models(self) -> int:
        return len(self.models)

    @classmethod
    def from_names(
        cls,
        model_a: Sequence[str],
        model_b: Sequence[str],
        outcome: ArrayLike,
        weights: ArrayLike | None = None,
        style_a: ArrayLike | None = None,
        style_b: ArrayLike | None = None,
    ) -> Battles:
        """Build from model names; ids follow first appearance in ``concat(model_a, model_b)``."""
        models, ids_a, ids_b = factorize(model_a, model_b)
        n = len(ids_a)
        return cls(
            models=models,
            model_a=ids_a,
            model_b=ids_b,
            outcome=np.asarray(outcome, dtype=np.float64).reshape(n),
            weights=np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64),
            style_a=None if style_a is None else np.asarray(style_a, dtype=np.float64),
            style_b=None if style_b is None else np.asarray(style_b, dtype=np.float64),
        )

    @classmethod
    def from_records(cls, records: Sequence[Mapping[str, Any]], style: bool = True) -> Battles:
        """Build from FastChat clean-battle records (``model_a, model_b, winner, conv_metadata``).

        With ``style`` the four FastChat style elements are read from ``conv_metadata``
        when every record has it.
        """
        names_a = [str(r["model_a"]) for r in records]
        names_b = [str(r["model_b"]) for r in records]
        outcome = [outcome_from_winner(str(r["winner"])) for r in records]
        style_a = style_b = None
        if style and records and all("conv_metadata" in r for r in records):
            style_a = [
                [style_count(r["conv_metadata"][k]) for k in STYLE_ELEMENTS_A] for r in records
            ]
            style_b = [
                [style_count(r["conv_metadata"][k]) for k in STYLE_ELEMENTS_B] for r in records
            ]
        return cls.from_names(names_a, names_b, outcome, style_a=style_a, style_b=style_b)

    def take(self, rows: ArrayLike) -> Battles:
        """The given rows (indices or boolean mask), model ids re-factorized on them."""
        index = np.arange(len(self))[np.asarray(rows)]
        names = np.asarray(self.models, dtype=object)
        return Battles.from_names(
            list(names[self.model_a[index]]),
            list(names[self.model_b[index]]),
            self.outcome[index],
            self.weights[index],
            None if self.style_a is None else self.style_a[index],
            None if self.style_b is None else self.style_b[index],
        )

    def num_battles(self) -> FloatArray:
        """Weighted appearances per model, as model_a plus as model_b."""
        counts = np.bincount(self.model_a, self.weights, minlength=self.n_models)
        counts = counts + np.bincount(self.model_b, self.weights, minlength=self.n_models)
        return np.asarray(counts, dtype=np.float64)


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """Battle records from a JSONL file or a JSON array (FastChat ``clean_battle_*.json``)."""
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        loaded: list[dict[str, Any]] = json.loads(text)
        return loaded
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class MergedRows:
    """Identical rows merged: ``first[u]`` is a representative row of unique row ``u``,
    ``inverse[i]`` the unique row of row ``i``, ``weights[u]`` the summed row weights.
    Unique rows are in lexicographic order of the key columns (first column primary),
    the order of ``np.unique(axis=0)``."""

    first: IntArray
    inverse: IntArray
    weights: FloatArray


def merge_identical(columns: Sequence[ArrayLike], weights: ArrayLike | None = None) -> MergedRows:
    """Merge rows equal in every key column, summing their weights."""
    keys = [np.asarray(c) for c in columns]
    n = keys[0].shape[0]
    order = np.lexsort(keys[::-1]) if n else np.zeros(0, dtype=np.intp)
    new_group = np.zeros(n, dtype=bool)
    if n:
        new_group[0] = True
    for key in keys:
        sorted_key = key[order]
        new_group[1:] |= sorted_key[1:] != sorted_key[:-1]
    group_of_sorted = np.cumsum(new_group) - 1
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = group_of_sorted
    row_weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    merged = np.bincount(inverse, row_weights, minlength=int(new_group.sum()))
    return MergedRows(
        first=order[new_group].astype(np.intp),
        inverse=inverse,
        weights=np.asarray(merged, dtype=np.float64),
    )
