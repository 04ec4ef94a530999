"""Battles as numpy arrays: the one input every rating function takes.

A battle table keeps one row per battle **in the given order** (online Elo and the
reference bootstrap streams depend on the order) and names models by integer ids in
first-appearance order of ``concat(model_a, model_b)`` (pandas ``factorize``), the order
FastChat and arena-hard use. Identical rows are merged with weights only inside the fits
(:func:`vlmscope.ratings.inputs.merged_rows.merge_identical`), so per-row statistics (style standardisation, row resampling)
see the battles as recorded.

Rows are checked where they come in (:func:`read_battle_records`, :func:`check_battle_records`,
:meth:`Battles.from_records`, :func:`battles_from_columns`; see
:mod:`vlmscope.ratings.inputs.row_checks`): a row that cannot be used is an error naming its place and
field, or skipped and counted when the caller asks for that; it is never coerced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vlmscope.ratings.inputs.labels import check_labels
from vlmscope.ratings.inputs.row_checks import (
    BAD_FLAG,
    BAD_NUMBER,
    BAD_WINNER,
    MISSING_FIELD,
    SELF_BATTLE,
    BadRowError,
    CheckedRows,
    check_file,
    check_records,
    count_total,
    model_name,
    number,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

#: Style elements in FastChat order (``STYLE_CONTROL_ELEMENTS_V1``): the a side, then b.
STYLE_ELEMENTS_A = ("sum_assistant_a_tokens", "header_count_a", "list_count_a", "bold_count_a")
STYLE_ELEMENTS_B = ("sum_assistant_b_tokens", "header_count_b", "list_count_b", "bold_count_b")
_STYLE_FIELDS = tuple(
    (element, f"conv_metadata.{element}") for element in STYLE_ELEMENTS_A + STYLE_ELEMENTS_B
)
_STYLE_KEYS = STYLE_ELEMENTS_A + STYLE_ELEMENTS_B


#: The winners a battle row may name, with model_a's score.
WINNER_OUTCOMES: Mapping[str, float] = {
    "model_a": 1.0,
    "model_b": 0.0,
    "tie": 0.5,
    "tie (bothbad)": 0.5,
}


def outcome_from_winner(winner: str) -> float:
    """Score of model_a: 1 for ``model_a``, 0 for ``model_b``, 0.5 for ``tie`` and
    ``tie (bothbad)`` (only filters tell the two ties apart). Any other value raises
    :class:`BadRowError` (``bad_winner``): an unknown winner is not a tie."""
    outcome = WINNER_OUTCOMES.get(winner) if isinstance(winner, str) else None
    if outcome is None:
        allowed = ", ".join(WINNER_OUTCOMES)
        raise BadRowError(BAD_WINNER, "winner", f"{winner!r} is not one of {allowed}")
    return outcome


def style_count(value: int | float | Mapping[str, int | float], name: str = "count") -> float:
    """A style element as one number: a number as is, a dict of sub-counts summed. Each must be
    a finite, non-negative number (not a bool, not a string): else :class:`BadRowError`."""
    return count_total(value, name)


def battle_models_and_outcome(record: Mapping[str, Any]) -> tuple[str, str, float]:
    """``(model_a, model_b, outcome)`` of a clean-battle record: two different non-blank model
    names and a known winner, else :class:`BadRowError` naming the field."""
    name_a = model_name(record, "model_a")
    name_b = model_name(record, "model_b")
    if name_a == name_b:
        raise BadRowError(SELF_BATTLE, "model_b", f"{name_a!r} is also model_a")
    if "winner" not in record:
        raise BadRowError(BAD_WINNER, "winner", "absent")
    return name_a, name_b, outcome_from_winner(record["winner"])


def battle_style(
    record: Mapping[str, Any], *, required: bool
) -> tuple[list[float], list[float]] | None:
    """The a-side and b-side style counts of ``conv_metadata`` (FastChat elements), each checked.

    With ``required`` every element must be there; otherwise the elements present are checked
    and None is returned unless all are."""
    meta = record.get("conv_metadata")
    if meta is None:
        if required:
            raise BadRowError(MISSING_FIELD, "conv_metadata", "absent; style control needs it")
        return None
    if not isinstance(meta, Mapping):
        raise BadRowError(MISSING_FIELD, "conv_metadata", "not an object")
    try:
        counts = _plain_counts(meta) or [
            count_total(meta[element], name) for element, name in _STYLE_FIELDS
        ]
    except KeyError:  # an element is absent: an error with `required`, else check the rest
        for element, name in _STYLE_FIELDS:
            if element in meta:
                count_total(meta[element], name)
            elif required:
                raise BadRowError(MISSING_FIELD, name, "absent; style control needs it") from None
        return None
    half = len(STYLE_ELEMENTS_A)
    return counts[:half], counts[half:]


def _plain_counts(meta: Mapping[str, Any]) -> list[float] | None:
    """The style counts when each is a non-negative int or a dict of them (FastChat's shape),
    summed inline; None for anything else, which :func:`count_total` then checks one by one.
    Raises KeyError for a missing element, like the per-element path."""
    out: list[float] = []
    for element in _STYLE_KEYS:
        value = meta[element]
        kind = type(value)
        if kind is int and value >= 0:
            out.append(float(value))
        elif kind is dict:
            total = 0
            for item in value.values():
                if type(item) is not int or item < 0:
                    return None
                total += item
            out.append(float(total))
        else:
            return None
    return out


class BattleRow(NamedTuple):
    """A checked clean-battle record's values: the models, model_a's outcome and each side's
    style counts (None unless all four FastChat elements are present)."""

    model_a: str
    model_b: str
    outcome: float
    style_a: list[float] | None = None
    style_b: list[float] | None = None


def battle_row(record: Mapping[str, Any], *, style: bool = False) -> BattleRow:
    """Check every field of a clean-battle record the rating code reads and return the values:
    the two models, the winner, ``tstamp`` (a finite number when present), ``anony`` (a boolean
    when present), the labels the boards read (:mod:`vlmscope.ratings.inputs.labels`) and the
    style counts present in ``conv_metadata`` (all of them required with ``style``)."""
    name_a, name_b, outcome = battle_models_and_outcome(record)
    tstamp = record.get("tstamp", 0.0)
    if type(tstamp) is not float or not math.isfinite(tstamp):
        number(tstamp, "tstamp", count=False)
    anony_flag(record)
    check_labels(record)
    sides = battle_style(record, required=style)
    if sides is None:
        return BattleRow(name_a, name_b, outcome)
    return BattleRow(name_a, name_b, outcome, sides[0], sides[1])


def anony_flag(record: Mapping[str, Any]) -> bool:
    """A record's ``anony``: absent is anonymous (VisionArena-Battle has no column), anything
    but a boolean a bad row ("false" would be true, null would drop the battle)."""
    anony = record.get("anony", True)
    if type(anony) is not bool:
        raise BadRowError(BAD_FLAG, "anony", f"{anony!r} is not true or false")
    return anony


def battle_key(record: Mapping[str, Any]) -> tuple[str, Any, str] | None:
    """A battle's identity for the repeat check: its ``question_id`` (FastChat names each
    battle by one), None when it has none (rows from columns, hand-made records)."""
    value = record.get("question_id")
    if value is None or isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return "question_id", value, repr(value)


def check_battle(record: Mapping[str, Any], *, style: bool = False) -> Mapping[str, Any]:
    """:func:`battle_row`'s checks; returns the record itself."""
    battle_row(record, style=style)
    return record


def check_battle_records(
    records: Sequence[Any], *, style: bool = False, skip_bad_rows: bool = False
) -> CheckedRows[Mapping[str, Any]]:
    """:func:`check_battle` on in-memory records; a bad row is named by its index, a repeated
    ``question_id`` is a bad row (``repeated``)."""
    return check_records(
        records,
        lambda record: check_battle(record, style=style),
        skip_bad_rows=skip_bad_rows,
        key=battle_key,
    )


def read_battle_records(
    path: str | Path, *, style: bool = False, skip_bad_rows: bool = False
) -> CheckedRows[Mapping[str, Any]]:
    """Battle records of a JSON-lines file or JSON array, each checked by :func:`check_battle`.

    A bad row raises :class:`BadRowError` naming the file, the line (JSON lines, 1-based) or
    index (JSON array) and the field; with ``skip_bad_rows`` it is left out and counted. A
    repeated ``question_id`` is such a row (``repeated``)."""
    return check_file(
        path,
        lambda record: check_battle(record, style=style),
        skip_bad_rows=skip_bad_rows,
        key=battle_key,
    )


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
        when every record has it. The fields read are checked: a bad record raises
        :class:`BadRowError` naming its index and field.
        """
        use_style = bool(
            style
            and records
            and all(isinstance(r, Mapping) and "conv_metadata" in r for r in records)
        )
        if use_style:
            rows = check_records(records, lambda record: battle_row(record, style=True)).rows
        else:
            rows = check_records(records, lambda r: BattleRow(*battle_models_and_outcome(r))).rows
        return cls.from_rows(rows, style=use_style)

    @classmethod
    def from_rows(cls, rows: Sequence[BattleRow], style: bool = True) -> Battles:
        """Build from checked rows (:func:`battle_row`); with ``style`` the style counts are
        kept when every row has them."""
        style_a = [r.style_a for r in rows if r.style_a is not None] if style else []
        style_b = [r.style_b for r in rows if r.style_b is not None] if style else []
        use_style = bool(rows) and len(style_a) == len(style_b) == len(rows)
        return cls.from_names(
            [r.model_a for r in rows],
            [r.model_b for r in rows],
            [r.outcome for r in rows],
            style_a=style_a if use_style else None,
            style_b=style_b if use_style else None,
        )

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
    """JSON objects of a JSON-lines file or a JSON array (FastChat ``clean_battle_*.json``).

    A line that is not a JSON object raises :class:`BadRowError` naming the file and line;
    :func:`read_battle_records` also checks the battle fields."""
    return check_file(path, dict).rows


def battles_from_columns(
    model_a: Sequence[Any],
    model_b: Sequence[Any],
    winner: Sequence[Any],
    weight: Sequence[Any] | None = None,
    anony: Sequence[Any] | None = None,
) -> Battles:
    """Battles from parallel columns (the ``arena_ratings`` evaluate module's inputs), each item
    checked like a record: a bad item raises :class:`BadRowError` naming its index and field.
    ``weight`` (how many battles a row stands for) must be a positive finite number. With
    ``anony`` (a clean-battle file's column, true or false per row), the battles that were not
    anonymous are left out, as ``vlmscope ratings battles`` and FastChat leave them out."""
    n = len(model_a)
    lengths = {"model_b": len(model_b), "winner": len(winner)}
    if weight is not None:
        lengths["weight"] = len(weight)
    if anony is not None:
        lengths["anony"] = len(anony)
    wrong = {name: size for name, size in lengths.items() if size != n}
    if wrong:
        raise ValueError(f"columns: model_a has {n} items but {wrong}")
    weights: Sequence[Any] = [1.0] * n if weight is None else weight

    flags: Sequence[Any] = [True] * n if anony is None else anony

    def item(record: Mapping[str, Any]) -> tuple[str, str, float, float, bool]:
        name_a, name_b, outcome = battle_models_and_outcome(record)
        w = number(record["weight"], "weight")
        if w == 0.0:
            raise BadRowError(BAD_NUMBER, "weight", "0 is not a positive weight")
        return name_a, name_b, outcome, w, anony_flag(record)

    records = [
        {"model_a": a, "model_b": b, "winner": w, "weight": v, "anony": f}
        for a, b, w, v, f in zip(model_a, model_b, winner, weights, flags, strict=True)
    ]
    rows = [r for r in check_records(records, item).rows if r[4]]
    return Battles.from_names(
        [r[0] for r in rows],
        [r[1] for r in rows],
        [r[2] for r in rows],
        weights=None if weight is None else [r[3] for r in rows],
    )
