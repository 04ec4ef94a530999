"""What a comparison says: typed, so the terminal, Markdown, JSON and the Space show the same.

A `PairComparison` is two models on one track: the paired numbers (each the two models' values
and an estimate with its 95% interval and p-value: a difference A - B, a probability that A
beats B, or a share), lists that are not estimates (tasks that move most, prompts where the
verdicts disagree), and notes (what was left out, and why). A `TrackComparison` holds every
pair of the models compared on a track.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vlmscope.stats.intervals import Interval

PERCENT, PROBABILITY, POINTS = "percent", "probability", "points"
"""Units: a 0-1 score shown in percent, a probability (shown in percent), rating points."""


@dataclass(frozen=True)
class PairedNumber:
    """One number of the comparison. `a` and `b` are the models' own values (None when the
    number is about the pair, like P(A beats B)); `estimate` the paired statistic with its
    interval and p-value, None with `note` saying why there is none."""

    label: str
    a: float | None
    b: float | None
    estimate: Interval | None
    unit: str = PERCENT
    section: str = ""
    """"" for the headline numbers, else the breakdown it belongs to ("skills", ...)."""
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "section": self.section,
            "unit": self.unit,
            "a": self.a,
            "b": self.b,
            "estimate": None if self.estimate is None else self.estimate.to_json(),
            "note": self.note,
        }


@dataclass(frozen=True)
class ListTable:
    """Rows that are not estimates: the tasks that move most, disagreeing verdicts, counts."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(r) for r in self.rows],
        }


@dataclass(frozen=True)
class PairComparison:
    track: str
    a: str
    b: str
    items: str
    """What was compared, in words ("14 queries in 7 tasks, answered by both")."""
    method: str
    numbers: tuple[PairedNumber, ...]
    tables: tuple[ListTable, ...] = ()
    notes: tuple[str, ...] = ()
    tests: Mapping[str, Any] = field(default_factory=dict)
    """Named tests beside the intervals (SimpleVQA's McNemar), as JSON."""

    def headline(self) -> tuple[PairedNumber, ...]:
        return tuple(n for n in self.numbers if not n.section)

    def to_json(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "a": self.a,
            "b": self.b,
            "items": self.items,
            "method": self.method,
            "numbers": [n.to_json() for n in self.numbers],
            "tables": [t.to_json() for t in self.tables],
            "notes": list(self.notes),
            "tests": dict(self.tests),
        }


@dataclass(frozen=True)
class TrackComparison:
    """Every pair of `models` on one track (in the order given: A before B), or why the track
    could not be compared (`skipped`)."""

    track: str
    title: str
    models: tuple[str, ...]
    pairs: tuple[PairComparison, ...] = ()
    notes: tuple[str, ...] = ()
    mismatch: Mapping[str, list[str]] = field(default_factory=dict)
    """Per model, the item ids other compared models have and it lacks (all left out)."""
    skipped: str = ""

    def pair(self, a: str, b: str) -> PairComparison | None:
        return next((p for p in self.pairs if (p.a, p.b) == (a, b)), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "title": self.title,
            "models": list(self.models),
            "pairs": [p.to_json() for p in self.pairs],
            "notes": list(self.notes),
            "mismatch": {m: list(ids) for m, ids in self.mismatch.items()},
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class Compared:
    """What a track's comparison returns: every pair, notes on the track, and per model the
    item ids it lacks (left out of every pair with it)."""

    pairs: list[PairComparison]
    notes: list[str]
    missing: Mapping[str, list[str]]
