"""The store's conversations as a VisionArena-Chat folder: what a fresh bench is built from.

VisionArena-Chat holds one row per conversation with one model; a battle is two of them, the
same prompts answered by each side. So each vote gives two Chat rows, `<question_id>-a` with
model_a's answers and `<question_id>-b` with model_b's, in the order the votes were cast, each
with the battle's images, language (detected when the battle was voted, `arena.language`),
turns and time. The arena keeps no user id (the voter is an anonymous session) and runs no
category classifiers, so `user_id` and `categories` are null. `vlmscope visionarena
build-bench` reads the folder as it reads a VisionArena-Chat download (both sides ask the same
thing, so its exact-duplicate rule keeps one of each pair): a bench of prompts no model has
been tested on before.

Two layouts, as `export` writes battles: `chat.jsonl` beside `images/<sha256>.<ext>`, or the
Hub parquet layout (`data/train-00000-of-00001.parquet`, images embedded, the features of
`vlmscope.datasets.visionarena.VisionArenaChat`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from vlmscope.arena.export import PARQUET_NAME, embedded, write_jsonl_layout, write_table
from vlmscope.arena.vote_store import VoteStore
from vlmscope.datasets.visionarena import CHAT_FEATURES, messages
from vlmscope.tracks.visionarena import conversations as fields

JSONL_NAME = "chat.jsonl"
SIDES = ("a", "b")


def chat_records(store: VoteStore) -> Iterator[dict[str, Any]]:
    """Two Chat records per vote (side a, then side b); `images` as the store's hashes."""
    for vote in store.votes():
        record = vote.record
        where = f"question_id {record['question_id']}"
        for side in SIDES:
            turns = fields.conversation(
                record[f"conversation_{side}"], where, f"conversation_{side}"
            )
            yield {
                "images": list(record["images"]),
                "conversation_id": f"{record['question_id']}-{side}",
                "model": record[f"model_{side}"],
                "num_turns": int(record["num_turns"]),
                "conversation": messages(turns),
                "translated_conversation": None,
                "language": record.get("language") or "",
                "user_id": None,
                "tstamp": float(record["tstamp"]),
                "is_preset": bool(record.get("is_preset", False)),
                "preset_dataset": "",
                "categories": None,
            }


def export_chat_jsonl(store: VoteStore, folder: str | Path) -> Path:
    """Write `chat.jsonl` and `images/` into `folder`; returns the JSON-lines file."""
    return write_jsonl_layout(store, folder, chat_records(store), JSONL_NAME)


def export_chat_parquet(store: VoteStore, folder: str | Path) -> Path:
    """Write the Hub parquet layout into `folder`, images embedded; returns the shard."""
    rows = embedded(store, chat_records(store))
    target = Path(folder) / PARQUET_NAME
    write_table(pa.Table.from_pylist(rows, schema=CHAT_FEATURES.arrow_schema), target)
    return target
