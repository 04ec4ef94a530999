"""The vote of a VisionArena-Battle row, checked by the rules every rating door uses.

A Battle row reaches a board by two doors: read from a data folder (`vlmscope visionarena
leaderboard DIR`, the track, the `datasets` builder), or after the builder exported it. Both
read it here, and what decides whether the vote can be rated (two different non-blank models, a
known winner, a finite `tstamp`, `anony` true or false, finite non-negative style counts, labels
true, false or null) is `vlmscope.ratings.inputs.battles.battle_row`, the check of a FastChat
battle file too: a row the leaderboard would refuse is refused when it is read, by every door,
naming its file, id and field.

Column by column:
- `anony`: null or absent means not recorded (the upstream Battle data has no such column: every
  battle there was anonymous), read as anonymous and said so in the board;
- `categories`: the classifier labels as given (`conversations.category_labels`): a flag that is
  absent or null stays unlabelled, in no category board and counted there;
- `dedup_tag`: {high_freq, sampled} when given; absent or null: not deduplicated, so the dedup
  board has no battles to fill it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vlmscope.ratings.inputs.battles import battle_row
from vlmscope.ratings.inputs.row_checks import BadRowError
from vlmscope.tracks.visionarena.row_files import VisionArenaDataError

#: `categories` flag -> FastChat `category_tag` key of the vision classifiers (v0.1).
CATEGORY_TAGS = {"captioning": "captioning_v0.1", "homework": "homework_v0.1",
                 "ocr": "ocr_v0.1", "humor": "humor_v0.1",
                 "entity_recognition": "entity_recognition_v0.1",
                 "creative_writing": "creative_writing_vision_v0.1", "diagram": "diagram_v0.1",
                 "refusal": "refusal_v0.1", "code": "code_v0.1"}  # fmt: skip


def category_tag(labels: Mapping[str, bool | None]) -> dict[str, dict[str, Any]]:
    """The labels as FastChat's `category_tag` ({"ocr_v0.1": {"ocr": true}}, creative writing
    under `creative_writing_vision_v0.1` with `score` "yes"/"no"), an unlabelled flag null."""
    tags: dict[str, dict[str, Any]] = {
        tag: {name: labels.get(name)} for name, tag in CATEGORY_TAGS.items()
    }
    creative = tags["creative_writing_vision_v0.1"]
    flag = creative["creative_writing"]
    creative["score"] = None if flag is None else ("yes" if flag else "no")
    return tags


def dedup_tag(value: Any, where: str) -> dict[str, bool | None] | None:
    """The row's `dedup_tag` ({high_freq, sampled}, each true, false or null), or None."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise VisionArenaDataError(f"{where}: field 'dedup_tag' is {value!r}, expected a struct")
    out: dict[str, bool | None] = {}
    for name in ("high_freq", "sampled"):
        flag = value.get(name)
        if flag is not None and not isinstance(flag, bool):
            raise VisionArenaDataError(
                f"{where}: field 'dedup_tag.{name}' is {flag!r}, expected true or false"
            )
        out[name] = flag
    return out


def check_vote(
    record: Mapping[str, Any],
    labels: Mapping[str, bool | None],
    dedup: Mapping[str, bool | None] | None,
    where: str,
) -> None:
    """Check the row's vote as a battle file's row is checked (`battle_row`); a bad field is a
    `VisionArenaDataError` naming `where` (file and id) and the field."""
    vote: dict[str, Any] = {
        name: record.get(name) for name in ("model_a", "model_b", "winner", "tstamp")
    }
    if "winner" not in record:
        del vote["winner"]
    if record.get("anony") is not None:
        vote["anony"] = record["anony"]
    meta = record.get("conv_metadata")
    if meta is not None:
        vote["conv_metadata"] = meta
    vote["category_tag"] = category_tag(labels)
    vote["dedup_tag"] = dedup
    try:
        battle_row(vote)
    except BadRowError as error:
        raise VisionArenaDataError(f"{where}: {error}") from None
