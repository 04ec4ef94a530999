"""The store's votes as a VisionArena-Battle folder that the track's readers open unchanged.

Two layouts, the two `vlmscope.tracks.hub_files` reads:
- `jsonl`: `battles.jsonl` (one battle-shaped record a line, `images` as file names) beside
  `images/<sha256>.<ext>`, each image written once. The same file is also a FastChat battles
  file (`vlmscope ratings battles`, `vlmscope visionarena leaderboard FILE`);
- `parquet`: `data/train-00000-of-00001.parquet` with the images embedded as {bytes, path}
  structs, as the Hub publishes the Battle dataset (and what a Hub push uploads).
Files are written beside their final name and renamed into place, so a reader never sees half;
an `images` folder that is a symbolic link is refused (`vlmscope.owned_files`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from vlmscope.arena.vote_store import StoredVote, VoteStore
from vlmscope.atomic_files import write_bytes_atomic
from vlmscope.owned_files import refuse_linked_folder

EXTENSIONS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp", "GIF": "gif"}
JSONL_NAME = "battles.jsonl"
PARQUET_NAME = "data/train-00000-of-00001.parquet"


def image_name(sha256: str, kind: str) -> str:
    """An image's file name: its hash and the extension of its format."""
    return f"{sha256}.{EXTENSIONS.get(kind, kind.lower())}"


def export_jsonl(store: VoteStore, folder: str | Path) -> Path:
    """Write the JSON-lines layout into `folder`; returns the battles file."""
    return write_jsonl_layout(store, folder, (vote.record for vote in store.votes()), JSONL_NAME)


def write_jsonl_layout(
    store: VoteStore, folder: str | Path, records: Iterable[dict[str, Any]], name: str
) -> Path:
    """`records` (their `images` the store's hashes) as the JSON-lines file `name` in
    `folder`, each image written once to `images/`; returns the file."""
    folder = Path(folder)
    images = folder / "images"
    refuse_linked_folder(images)  # images go into the export folder, not where a link points
    images.mkdir(parents=True, exist_ok=True)
    lines = []
    for record in records:
        names = []
        for sha in record["images"]:
            file = image_name(sha, store.image_format(sha))
            if not (images / file).exists():  # an image is read only to write its file once
                write_bytes_atomic(images / file, store.image(sha)[1])
            names.append(file)
        lines.append(json.dumps({**record, "images": names}, ensure_ascii=False))
    target = folder / name
    write_bytes_atomic(target, ("\n".join(lines) + "\n" if lines else "").encode("utf-8"))
    return target


def embedded(store: VoteStore, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """`records` with their images embedded ({bytes, path} per image, as `datasets` writes an
    `Image` column)."""
    rows: list[dict[str, Any]] = []
    for record in records:
        images = []
        for sha in record["images"]:
            kind, data = store.image(sha)
            images.append({"bytes": data, "path": image_name(sha, kind)})
        rows.append({**record, "images": images})
    return rows


def battle_table(store: VoteStore, votes: Sequence[StoredVote]) -> pa.Table:
    """Votes as a table with the images embedded."""
    rows = embedded(store, (vote.record for vote in votes))
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    fields = [
        ("question_id", pa.string()),
        ("model_a", pa.string()),
        ("model_b", pa.string()),
        ("winner", pa.string()),
        ("judge", pa.string()),
        ("anony", pa.bool_()),
        ("is_preset", pa.bool_()),
        ("conversation_a", pa.list_(message)),
        ("conversation_b", pa.list_(message)),
        ("num_turns", pa.int64()),
        ("images", pa.list_(image)),
        ("language", pa.string()),
        ("tstamp", pa.float64()),
    ]
    table = pa.Table.from_pylist(rows, schema=pa.schema(fields))
    # conv_metadata's nested counts are inferred (their keys are the markdown extractor's)
    meta = pa.array([r["conv_metadata"] for r in rows]) if rows else pa.array([], pa.null())
    return table.append_column("conv_metadata", meta)


def export_parquet(store: VoteStore, folder: str | Path) -> Path:
    """Write the Hub parquet layout into `folder`; returns the shard."""
    target = Path(folder) / PARQUET_NAME
    refuse_linked_folder(target.parent)
    write_table(battle_table(store, store.votes()), target)
    return target


def write_table(table: pa.Table, target: Path) -> None:
    """`table` as a parquet file at `target`, written atomically (`vlmscope.atomic_files`)."""
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer)
    write_bytes_atomic(target, buffer.getvalue().to_pybytes())
