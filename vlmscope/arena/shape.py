"""A vote as a VisionArena-Battle row (FastChat's battle shape), and back for the ratings.

The record carries what the VisionArena track reads (`vlmscope.tracks.visionarena.rows`):
`question_id`, both models, `winner`, both conversations as {role, content} messages,
`num_turns`, `images` (sha256 hashes here; an export turns them into files or bytes),
`language`, `tstamp`, `judge` (the voter: an anonymous session id), `anony` (always True:
the arena only runs anonymous battles) and `conv_metadata`, the style counts computed from
the answers exactly as the track computes them for a row without any.

`language` is the first prompt's language as VisionArena names it (`arena.language`), or
"unknown" when it cannot be told.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vlmscope.arena.battles import Battle
from vlmscope.tracks.visionarena import conversations as fields
from vlmscope.tracks.visionarena.rows import BattleRow, conv_metadata


def vote_record(battle: Battle, winner: str, tstamp: float, language: str = "") -> dict[str, Any]:
    """The battle-shaped record of a vote on an answered battle."""
    record: dict[str, Any] = {
        "question_id": battle.question_id,
        "model_a": battle.model_a,
        "model_b": battle.model_b,
        "winner": winner,
        "judge": battle.session,
        "anony": True,
        "is_preset": False,
        "conversation_a": battle.conversation("a"),
        "conversation_b": battle.conversation("b"),
        "num_turns": len(battle.exchanges),
        "images": list(battle.images),
        "language": language,
        "tstamp": tstamp,
    }
    record["conv_metadata"] = conv_metadata(battle_row(record))
    return record


def battle_row(record: Mapping[str, Any]) -> BattleRow:
    """A stored record as the track's `BattleRow` (conversations read by the track's own
    reader, so a record it would refuse is refused here too)."""
    where = f"question_id {record['question_id']}"
    meta = record.get("conv_metadata")
    return BattleRow(
        question_id=record["question_id"],
        model_a=record["model_a"],
        model_b=record["model_b"],
        winner=record["winner"],
        conversation_a=fields.conversation(record["conversation_a"], where, "conversation_a"),
        conversation_b=fields.conversation(record["conversation_b"], where, "conversation_b"),
        images=(),
        language=record.get("language") or "",
        turn=int(record["num_turns"]),
        categories=fields.category_labels(record.get("categories"), where),
        is_preset=bool(record.get("is_preset", False)),
        anony=record.get("anony"),
        judge=str(record.get("judge") or ""),
        tstamp=float(record["tstamp"]),
        conv_metadata=None if meta is None else dict(meta),
    )
