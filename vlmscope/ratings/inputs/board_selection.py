"""Which records each board of one battle list is fitted on, and the checked values they share.

A leaderboard fits many boards (every category, every language, each plain and with style
control) from one list of clean-battle records. :class:`BoardSelector` selects every board's
battles as FastChat does (board filter, stable ``tstamp`` sort, anonymous only) with the time
order computed once and each filtered field read once into a column; :class:`BattleTable`
holds every record's checked values (models by a global id, outcome, style counts) as columns,
so that a board's :class:`~vlmscope.ratings.inputs.battles.Battles` is a take of its positions rather
than a second pass over the records.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.inputs.battles import BattleRow, Battles, FloatArray, IntArray
from vlmscope.ratings.inputs.filters import board_filter


class BoardSelector:
    """Every board's battles out of one list of records, as positions into it: FastChat's
    selection (board filter, stable ``tstamp`` sort, anonymous only) with the time order
    computed once for all boards and no record copied. Records without ``anony`` / ``tstamp``
    count as anonymous and keep their file order (``tstamp`` = their index). A board that reads
    a label leaves out the battles without it and counts them (:meth:`unlabelled`)."""

    def __init__(self, records: Sequence[Mapping[str, Any]]) -> None:
        self.records = records
        self._time_order: tuple[IntArray, NDArray[np.bool_]] | None = None  # on first use
        self._positions: dict[str | None, IntArray] = {}
        self._unlabelled: dict[str | None, int] = {}
        self._labelled: dict[str | None, int] = {}
        self._columns: dict[str, list[Any]] = {}

    def column(self, field: str, *, optional: bool = False) -> list[Any]:
        """Every record's ``field``, in record order (read once). KeyError when one lacks it,
        unless ``optional`` (a label: an absent one reads as None)."""
        if field not in self._columns:
            if optional:
                self._columns[field] = [record.get(field) for record in self.records]
            else:
                self._columns[field] = [record[field] for record in self.records]
        return self._columns[field]

    def _anonymous_by_time(self) -> tuple[IntArray, NDArray[np.bool_]]:
        if self._time_order is None:
            records, n = self.records, len(self.records)
            times = np.fromiter(
                (float(r["tstamp"]) if "tstamp" in r else float(i) for i, r in enumerate(records)),
                dtype=np.float64,
                count=n,
            )
            anony = np.fromiter((bool(r.get("anony", True)) for r in records), dtype=bool, count=n)
            self._time_order = np.argsort(times, kind="stable"), anony
        return self._time_order

    def positions(self, category: str | None = None) -> IntArray:
        """Positions of the board's records in fit order (computed once per board). Raises
        KeyError when the category's filter needs a field the records lack."""
        key = category or None
        if key not in self._positions:
            order, keep = self._anonymous_by_time()
            chosen = board_filter(key) if key else None
            unlabelled = 0
            labelled = int(keep.sum())
            if chosen is not None and chosen.field is not None:
                tests = chosen.mask(self.column(chosen.field, optional=chosen.label))
                passed = np.fromiter((t is True for t in tests), dtype=bool, count=len(tests))
                if chosen.label:
                    missing = np.fromiter((t is None for t in tests), dtype=bool, count=len(tests))
                    unlabelled = int((keep & missing).sum())
                    labelled -= unlabelled
                keep = keep & passed
            self._positions[key] = order[keep[order]]
            self._unlabelled[key] = unlabelled
            self._labelled[key] = labelled
        return self._positions[key]

    def unlabelled(self, category: str | None = None) -> int:
        """Battles the board would have considered (anonymous) but that carry no label for it."""
        self.positions(category)
        return self._unlabelled[category or None]

    def labelled(self, category: str | None = None) -> int:
        """Battles the board considered that carry its label, true or false (every anonymous
        battle for a board that reads no label)."""
        self.positions(category)
        return self._labelled[category or None]

    def select(self, category: str | None = None) -> list[Mapping[str, Any]]:
        """The board's records in fit order, as given."""
        records = self.records
        return [records[i] for i in self.positions(category).tolist()]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a block that makes a few small containers per
    record (checked rows, board entries) and no cycles: each full collection it would trigger
    walks every object of the records (about a million for 30,000 clean-battle records), which
    measured 15% of a whole leaderboard. The previous state is restored on the way out."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def select_board_battles(
    records: Sequence[Mapping[str, Any]], category: str | None = None
) -> list[Mapping[str, Any]]:
    """The records a board is fitted on, in fit order, as given (without the filled-in
    ``anony`` / ``tstamp`` defaults, so they can be stored as the board's details).

    Raises KeyError when the category's filter needs a field the records lack."""
    return BoardSelector(records).select(category)


@dataclass(frozen=True)
class BattleTable:
    """Checked values of every record, as columns (models by a global id), so that a board's
    :class:`Battles` is a take of its positions."""

    names: NDArray[np.object_]
    model_a: IntArray
    model_b: IntArray
    outcome: FloatArray
    style: FloatArray  # (n, 8): a side then b side; NaN where a row has no style counts
    has_style: NDArray[np.bool_]

    @classmethod
    def from_rows(cls, rows: Sequence[BattleRow]) -> BattleTable:
        index: dict[str, int] = {}
        add = index.setdefault
        names = [name for r in rows for name in (r.model_a, r.model_b)]
        ids = [add(name, len(index)) for name in names]
        pairs = np.array(ids, dtype=np.intp).reshape(-1, 2)
        style = np.full((len(rows), 8), np.nan)
        has_style = np.array(
            [r.style_a is not None and r.style_b is not None for r in rows], dtype=bool
        )
        if has_style.any():
            style[has_style] = [
                [*r.style_a, *r.style_b]
                for r in rows
                if r.style_a is not None and r.style_b is not None
            ]
        return cls(
            names=np.array(list(index), dtype=object),
            model_a=pairs[:, 0].copy(),
            model_b=pairs[:, 1].copy(),
            outcome=np.array([r.outcome for r in rows], dtype=np.float64),
            style=style,
            has_style=has_style,
        )

    def battles(self, positions: IntArray, style: bool) -> Battles:
        """Like ``Battles.from_rows`` on those rows: ids by first appearance in
        ``concat(model_a, model_b)``, style counts kept when asked and every row has them."""
        a, b = self.model_a[positions], self.model_b[positions]
        both = np.concatenate([a, b])
        seen, first = np.unique(both, return_index=True)
        by_appearance = seen[np.argsort(first, kind="stable")]
        local = np.empty(len(self.names), dtype=np.intp)
        local[by_appearance] = np.arange(len(by_appearance))
        n = len(positions)
        use_style = style and n > 0 and bool(self.has_style[positions].all())
        counts = self.style[positions] if use_style else None
        return Battles(
            models=tuple(self.names[by_appearance].tolist()),
            model_a=local[a],
            model_b=local[b],
            outcome=self.outcome[positions],
            weights=np.ones(n),
            style_a=None if counts is None else np.ascontiguousarray(counts[:, :4]),
            style_b=None if counts is None else np.ascontiguousarray(counts[:, 4:]),
        )
