"""A battle's labels (classifier categories, deduplication) as the boards read them: true,
false, or not labelled.

A category board keeps the battles labelled with its category; a battle nobody labelled (no
``category_tag``, a null one, a tag or flag that is absent or null) is in no category board
and out of none: it is left out of every board that reads the label and counted there as
unlabelled, never read as false (a "no refusal" board of battles nobody checked for refusals
would be the full board under another name). A board whose battles are all unlabelled has no
board; it is listed with that reason.

What a row must hold when it gives labels (checked with the rest of the row,
:func:`vlmscope.ratings.inputs.battles.battle_row`): ``category_tag`` an object of tags, each
tag an object, each flag a board reads true, false or null; ``dedup_tag`` an object whose
``sampled`` is true, false or null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vlmscope.ratings.inputs.row_checks import BAD_FLAG, BadRowError

#: The ``category_tag`` flags the boards read: (tag, flag), FastChat's vision classifiers v0.1.
READ_FLAGS: tuple[tuple[str, str], ...] = (
    ("captioning_v0.1", "captioning"),
    ("homework_v0.1", "homework"),
    ("ocr_v0.1", "ocr"),
    ("humor_v0.1", "humor"),
    ("entity_recognition_v0.1", "entity_recognition"),
    ("creative_writing_vision_v0.1", "creative_writing"),
    ("diagram_v0.1", "diagram"),
    ("refusal_v0.1", "refusal"),
)


def category_label(tags: Any, tag: str, flag: str) -> bool | None:
    """``tags[tag][flag]``: True or False, or None when the battle has no such label."""
    if not isinstance(tags, Mapping):
        return None
    entry = tags.get(tag)
    if not isinstance(entry, Mapping):
        return None
    value = entry.get(flag)
    return value if isinstance(value, bool) else None


def dedup_label(tag: Any) -> bool | None:
    """``dedup_tag["sampled"]``, or None when the battle has no deduplication label."""
    value = tag.get("sampled") if isinstance(tag, Mapping) else None
    return value if isinstance(value, bool) else None


def check_labels(record: Mapping[str, Any]) -> None:
    """Raise :class:`BadRowError` (``bad_flag``) naming the field when the row's labels are not
    of the shape the module docstring gives; absent or null labels pass (unlabelled)."""
    tags = record.get("category_tag")
    if tags is not None:
        if not isinstance(tags, Mapping):
            raise BadRowError(
                BAD_FLAG, "category_tag", f"{_shown(tags)} is not an object of classifier tags"
            )
        for tag, flag in READ_FLAGS:
            entry = tags.get(tag)
            if entry is None:
                continue
            if not isinstance(entry, Mapping):
                raise BadRowError(
                    BAD_FLAG, f"category_tag.{tag}", f"{_shown(entry)} is not an object"
                )
            value = entry.get(flag)
            if value is not None and not isinstance(value, bool):
                raise BadRowError(
                    BAD_FLAG, f"category_tag.{tag}.{flag}", f"{_shown(value)} is not true or false"
                )
    dedup = record.get("dedup_tag")
    if dedup is not None:
        if not isinstance(dedup, Mapping):
            raise BadRowError(BAD_FLAG, "dedup_tag", f"{_shown(dedup)} is not an object")
        sampled = dedup.get("sampled")
        if sampled is not None and not isinstance(sampled, bool):
            raise BadRowError(
                BAD_FLAG, "dedup_tag.sampled", f"{_shown(sampled)} is not true or false"
            )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
