"""Which battles a board uses: FastChat's ``report_elo_analysis_results`` filters.

Boards are selected on raw clean-battle records (dicts), before ids are assigned, so a
category board factorizes its own models. Order of operations (FastChat): board filter,
sort by ``tstamp``, language whitelist, drop unknown language, drop excluded models,
anonymous battles only, drop ties, per-user daily vote cap.

A board that reads a label (a category, ``dedup``, ``no_refusal``) tells a battle labelled
false from one not labelled at all (:mod:`vlmscope.ratings.inputs.labels`): its test gives None
for the latter, which is in no such board and is counted as unlabelled by the board's selection.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vlmscope.ratings.inputs.labels import category_label, dedup_label

Record = Mapping[str, Any]
RecordFilter = Callable[[Record], bool]


#: VisionArena category boards: name -> (``category_tag`` key, flag), classifier v0.1.
VISION_CATEGORIES: dict[str, tuple[str, str]] = {
    "captioning": ("captioning_v0.1", "captioning"),
    "homework": ("homework_v0.1", "homework"),
    "ocr": ("ocr_v0.1", "ocr"),
    "humor": ("humor_v0.1", "humor"),
    "entity_recognition": ("entity_recognition_v0.1", "entity_recognition"),
    "creative_writing_vision": ("creative_writing_vision_v0.1", "creative_writing"),
    "diagram": ("diagram_v0.1", "diagram"),
}


@dataclass(frozen=True)
class FieldTest:
    """A board's rule as a test on one field of a record (``field`` None: every record passes).

    Calling it on a record is the record filter FastChat applies; :meth:`mask` applies the same
    test to a column of that field's values, which is how :class:`BoardSelector
    <vlmscope.ratings.inputs.board_selection.BoardSelector>` filters every board of a large list: the
    field is read once for all boards that test it, not once per board. A ``label`` test reads
    a label: an absent field is no label, and the test gives None for an unlabelled value."""

    field: str | None
    test: Callable[[Any], bool | None]
    label: bool = False

    def __call__(self, record: Record) -> bool:
        if self.field is None:
            return True
        value = record.get(self.field) if self.label else record[self.field]
        return bool(self.test(value))

    def mask(self, column: Sequence[Any]) -> list[bool | None]:
        """The test on each of ``column``'s values (the records' ``field``, in order): True,
        False, or None for a value without the label."""
        if self.label:
            return list(map(self.test, column))
        return [bool(passed) for passed in map(self.test, column)]


def category_filter(name: str) -> FieldTest:
    """``record["category_tag"][tag][flag]`` for a VisionArena category (None: unlabelled)."""
    tag, flag = VISION_CATEGORIES[name]
    return FieldTest("category_tag", lambda tags: category_label(tags, tag, flag), label=True)


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


def language_filter(language: str) -> FieldTest:
    return FieldTest("language", lambda value: bool(value == language))


keep_all = FieldTest(None, lambda value: True)

dedup_sampled = FieldTest("dedup_tag", dedup_label, label=True)
"""The "dedup" board: prompts not over-represented, or sampled down to the cutoff."""

exclude_preset = FieldTest("is_preset", lambda preset: not preset)
"""The "Exclude Images from 'Random Example' Option" board."""

multi_turn = FieldTest("turn", lambda turns: int(turns) > 1)
"""Conversations with more than one user turn."""

no_tie = FieldTest("winner", lambda winner: "tie" not in str(winner))
"""The "exclude ties" board: FastChat's `exclude_tie` (drops both tie kinds) as a board."""

no_refusal = FieldTest(
    "category_tag",
    lambda tags: _not(category_label(tags, "refusal_v0.1", "refusal")),
    label=True,
)
"""The "no refusal" board: battles whose answers the refusal classifier did not flag."""


BOARD_FILTERS: dict[str, FieldTest] = {
    "full": keep_all,
    "dedup": dedup_sampled,
    "english": language_filter("English"),
    "chinese": language_filter("Chinese"),
    "is_preset": exclude_preset,
    "multiturn": multi_turn,
    "no_tie": no_tie,
    "no_refusal": no_refusal,
    **{name: category_filter(name) for name in VISION_CATEGORIES},
}
LANGUAGE_BOARD = "language: "
"""Prefix of a per-language board's name (`language: Russian`), any language a record names."""


def board_filter(name: str) -> FieldTest:
    """The filter of a board: one of `BOARD_FILTERS`, or `language: <name>`; KeyError else."""
    if name.startswith(LANGUAGE_BOARD) and name[len(LANGUAGE_BOARD) :].strip():
        return language_filter(name[len(LANGUAGE_BOARD) :])
    if name not in BOARD_FILTERS:
        raise KeyError(
            f"unknown board {name!r}: one of {sorted(BOARD_FILTERS)} or '{LANGUAGE_BOARD}<name>'"
        )
    return BOARD_FILTERS[name]


def cap_daily_votes(
    records: Sequence[Record], per_user: int, tz: dt.tzinfo = dt.timezone.utc
) -> list[Record]:
    """Keep the first ``per_user`` votes of each judge per calendar day (in ``tz``;
    FastChat uses the machine's local time zone)."""
    seen: dict[tuple[str, str], int] = {}
    kept = []
    for record in records:
        day = dt.datetime.fromtimestamp(float(record["tstamp"]), tz).strftime("%Y-%m-%d")
        key = (str(record["judge"]), day)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= per_user:
            kept.append(record)
    return kept


def select_battles(
    records: Iterable[Record],
    *,
    filter_func: RecordFilter | None = None,
    langs: Sequence[str] = (),
    exclude_unknown_lang: bool = False,
    exclude_models: Sequence[str] = (),
    anony_only: bool = True,
    exclude_tie: bool = False,
    daily_vote_per_user: int | None = None,
) -> list[Record]:
    """The battles a FastChat board is computed on, sorted by ``tstamp`` (stable sort)."""
    kept = [r for r in records if filter_func is None or filter_func(r)]
    kept.sort(key=lambda r: float(r["tstamp"]))
    if langs:
        kept = [r for r in kept if r["language"] in langs]
    if exclude_unknown_lang:
        kept = [r for r in kept if "unknown" not in str(r["language"])]
    if exclude_models:
        excluded = set(exclude_models)
        kept = [r for r in kept if r["model_a"] not in excluded and r["model_b"] not in excluded]
    if anony_only:
        kept = [r for r in kept if r["anony"]]
    if exclude_tie:
        kept = [r for r in kept if "tie" not in str(r["winner"])]
    if daily_vote_per_user is not None:
        kept = cap_daily_votes(kept, daily_vote_per_user)
    return kept
