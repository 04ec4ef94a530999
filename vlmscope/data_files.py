"""Opening the files users give (data, configs, metadata) so that a bad one is named.

Python and pyarrow describe a file they cannot use without naming it ("'utf-8' codec can't
decode byte 0xff", "Parquet magic bytes not found in footer", "Is a directory"), and the message
then reaches the user far from where the file was opened. Every reader of a user's file goes
through these functions instead; each raises the caller's error type (a track's data error, a
config error) with the file's path and what is wrong with it: not UTF-8, not JSON, not parquet
or truncated, a folder where a file belongs, absent, unreadable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

ErrorType = type[Exception]


def read_text(path: str | Path, error: ErrorType = ValueError) -> str:
    """The file's text (UTF-8); `error` naming the file when it is absent, a folder,
    unreadable, or not UTF-8."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise error(
            f"{path}: not UTF-8 text (byte {err.object[err.start : err.start + 1]!r} at "
            f"offset {err.start})"
        ) from None
    except OSError as err:
        raise error(f"{path}: {err.strerror or err}") from None


def read_json(path: str | Path, error: ErrorType = ValueError) -> Any:
    """The file's JSON document; `error` naming the file and the line when it is not JSON."""
    text = read_text(path, error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(f"{path}: line {err.lineno}: not JSON ({err.msg})") from None


def _arrow_reason(err: Exception) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def parquet_file(path: str | Path, error: ErrorType = ValueError) -> pq.ParquetFile:
    """The opened parquet file (footer read); `error` naming the file when it is not parquet,
    truncated, a folder or unreadable."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as err:
        reason = _arrow_reason(err) if not isinstance(err, FileNotFoundError) else "absent"
        raise error(f"{path}: does not read as parquet ({reason})") from None


def parquet_batches(
    path: str | Path,
    error: ErrorType = ValueError,
    *,
    columns: Sequence[str] | None = None,
    batch_size: int = 1024,
) -> Iterator[pa.RecordBatch]:
    """The file's rows in batches; a page that does not decode (a truncated or corrupt file)
    is `error` naming the file."""
    import pyarrow as pa

    handle = parquet_file(path, error)
    batches = handle.iter_batches(
        batch_size=batch_size, columns=None if columns is None else list(columns)
    )
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (OSError, pa.ArrowException) as err:
            raise error(f"{path}: does not read as parquet ({_arrow_reason(err)})") from None
        yield batch


def read_parquet(
    path: str | Path, error: ErrorType = ValueError, *, columns: Sequence[str] | None = None
) -> pa.Table:
    """The whole file as one table; `error` naming the file when it does not read."""
    import pyarrow as pa

    handle = parquet_file(path, error)
    try:
        return handle.read(columns=None if columns is None else list(columns))
    except (OSError, pa.ArrowException) as err:
        raise error(f"{path}: does not read as parquet ({_arrow_reason(err)})") from None
