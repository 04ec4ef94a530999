"""Where ProBench rows come from: the files of a data folder's layout and their raw records.

`rows.py` validates what this yields; both raise `ProBenchDataError`. Layouts, first match wins:
the Hub's `data/train-*.parquet`, else `train.parquet`, else every top-level `*.parquet`; else
one `.json`/`.jsonl` file whose `image` names a file in `images/` beside it (or beside the
file), resolved by `inside_data_dir` so that no name leads out of the folder.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from vlmscope.tracks.json_rows import json_records, single_json_file
from vlmscope.tracks.media_paths import inside_data_dir

SPLIT = "train"
#: Every row needs these; `challenge`, `category` and `language` depend on the chat type.
REQUIRED_COLUMNS = ("uuid", "chat_type", "conversations", "image")
COLUMNS = (*REQUIRED_COLUMNS, "challenge", "category", "language")
IMAGE_DIR_NAME = "images"
_BATCH_ROWS = 64


class ProBenchDataError(ValueError):
    """A file or row that cannot be used; the message names the uuid and the field."""


def read_image_file(name: str, where: str, image_dirs: tuple[Path, ...]) -> bytes:
    """The bytes of the first `image_dirs` folder's file `name`; a name leading out is refused."""
    for folder in image_dirs:
        candidate = inside_data_dir(folder, name, row=where, field="image", error=ProBenchDataError)
        if candidate.is_file():
            return candidate.read_bytes()
    raise ProBenchDataError(
        f"{where}: field 'image': file {name!r} not found in {', '.join(map(str, image_dirs))}"
    )


def records(folder: Path) -> Iterator[tuple[str, Mapping[str, Any], tuple[Path, ...]]]:
    """(file name, record, image folders) for every record of the layout found in `folder`."""
    if not folder.is_dir():
        raise ProBenchDataError(f"data_dir {folder} is not a directory")
    parquet = parquet_files(folder)
    if parquet:
        for path in parquet:
            for record in _parquet_records(path):
                yield path.name, record, ()
        return
    source = single_json_file(
        folder, ProBenchDataError, f"data/{SPLIT}-*.parquet, {SPLIT}.parquet or *.parquet"
    )
    image_dirs = (folder / IMAGE_DIR_NAME, folder)
    for record in json_records(source, ProBenchDataError):
        yield source.name, record, image_dirs


def parquet_files(folder: Path) -> list[Path]:
    """The Hub's train shards, else `train.parquet`, else every top-level `*.parquet`."""
    for pattern in (f"data/{SPLIT}-*.parquet", f"{SPLIT}.parquet", "*.parquet"):
        found = sorted(p for p in folder.glob(pattern) if p.is_file())
        if found:
            return found
    return []


def _parquet_records(path: Path) -> Iterator[dict[str, Any]]:
    """Records one batch at a time, so a large shard is never held twice (arrow and Python)."""
    file = pq.ParquetFile(path)
    names = file.schema_arrow.names
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    if missing:
        raise ProBenchDataError(f"{path.name}: missing column(s) {', '.join(missing)}")
    columns = [c for c in COLUMNS if c in names]
    for batch in file.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
        yield from batch.to_pylist()
