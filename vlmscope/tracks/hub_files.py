"""Finding a Hub dataset's rows in a data folder, in either layout its builders accept.

1. The Hub's parquet shards of one split (`data/<split>-*.parquet`, or `default/...` as an
   export of a builder writes them), else `<split>.parquet`, else every top-level `*.parquet`: read one batch at a time, only the columns the track
   reads, after checking the required ones are there;
2. one `.json`/`.jsonl` file of the same records, whose image fields are file names inside
   `images/` beside it (or beside the JSON file); a name leading out of the folder is refused.

Each track's reader passes its own error type, so a bad file reads like a bad row of that track.
ProBench and the VisionArena datasets are published this way.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError
from PIL.Image import DecompressionBombError

from vlmscope.data_files import parquet_batches, parquet_file
from vlmscope.tracks.json_rows import json_records, single_json_file
from vlmscope.tracks.media_paths import inside_data_dir

IMAGE_DIR_NAME = "images"
_BATCH_ROWS = 64

Located = tuple[str, Mapping[str, Any], tuple[Path, ...]]
"""(file name, record, the folders its image file names resolve in; empty for parquet)."""


def hub_records(
    folder: Path,
    *,
    split: str,
    required: Sequence[str],
    optional: Sequence[str],
    error: type[ValueError],
) -> Iterator[Located]:
    """Every record of the layout found in `folder`, in file order."""
    if not folder.is_dir():
        raise error(f"data_dir {folder} is not a directory")
    parquet = parquet_files(folder, split)
    if parquet:
        for path in parquet:
            for record in _parquet_records(path, required, optional, error):
                yield path.name, record, ()
        return
    source = single_json_file(
        folder, error, f"data/{split}-*.parquet, {split}.parquet or *.parquet"
    )
    image_dirs = (folder / IMAGE_DIR_NAME, folder)
    for record in json_records(source, error):
        yield source.name, record, image_dirs


def parquet_files(folder: Path, split: str) -> list[Path]:
    """The Hub's shards of `split`, else `<split>.parquet`, else every top-level `*.parquet`."""
    for pattern in (
        f"data/{split}-*.parquet",
        f"default/{split}-*.parquet",  # what `load_dataset` and our exports write
        f"{split}.parquet",
        "*.parquet",
    ):
        found = sorted(p for p in folder.glob(pattern) if p.is_file())
        if found:
            return found
    return []


def read_image_file(
    name: str, where: str, field: str, image_dirs: tuple[Path, ...], error: type[ValueError]
) -> bytes:
    """The bytes of the first `image_dirs` folder's file `name`; a name leading out is refused,
    and one the file system cannot take (base64 text where a file name belongs is too long)
    is the row's error."""
    shown = name if len(name) <= 80 else f"{name[:77]}..."
    for folder in image_dirs:
        candidate = inside_data_dir(folder, name, row=where, field=field, error=error)
        try:
            if candidate.is_file():
                return candidate.read_bytes()
        except OSError as err:
            raise error(
                f"{where}: field {field!r}: cannot read file {shown!r}: {err.strerror or err}"
            ) from None
    raise error(
        f"{where}: field {field!r}: file {shown!r} not found in {', '.join(map(str, image_dirs))}"
    )


def image_format(data: bytes, where: str, field: str, error: type[ValueError]) -> str:
    """The format Pillow reads in encoded image bytes, once they are checked to decode: a
    truncated, corrupt or decompression-bomb file is the row's error, naming it.

    `verify()` walks a PNG's chunks but reads nothing of a JPEG's pixel data, so the pixels
    are also decoded once: a JPEG cut short would otherwise pass here and fail later, in a
    model's processor or when the built dataset's row is opened."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind = image.format or ""
            image.verify()
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        DecompressionBombError,
    ) as err:
        # Pillow names the in-memory buffer it read ("<_io.BytesIO object at 0x...>"), which
        # tells the user nothing; the bytes' length and start say what the field held instead
        reason = (
            f"cannot identify an image format Pillow reads in its {len(data)} bytes "
            f"(they start {data[:16]!r})"
            if isinstance(err, UnidentifiedImageError)
            else str(err)
        )
        raise error(f"{where}: field {field!r} does not decode as an image: {reason}") from err
    return kind


def _parquet_records(
    path: Path, required: Sequence[str], optional: Sequence[str], error: type[ValueError]
) -> Iterator[dict[str, Any]]:
    """Records one batch at a time, so a large shard is never held twice (arrow and Python)."""
    names = parquet_file(path, error).schema_arrow.names
    missing = [c for c in required if c not in names]
    if missing:
        raise error(f"{path.name}: missing column(s) {', '.join(missing)}")
    columns = [c for c in (*required, *optional) if c in names]
    for batch in parquet_batches(path, error, columns=columns, batch_size=_BATCH_ROWS):
        yield from batch.to_pylist()
