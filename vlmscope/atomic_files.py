"""Write a result file so that a reader sees the old file or the new one, never half of one.

A file is written beside its target under a temporary name (`.<name>.partial-<pid>`) and renamed
over it: a rename within one folder is atomic on POSIX file systems, so the Space, a second
process or the official tools reading the folder meanwhile never parse a truncated JSON. A write
that fails (disk full, killed mid-way) leaves the previous file as it was and removes its partial
copy when it can; a partial copy left by a killed process is only ever an extra hidden file.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` through a temporary file and a rename; creates parent folders."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        partial.write_bytes(data)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return target


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """:func:`write_bytes_atomic` of `text` encoded."""
    return write_bytes_atomic(path, text.encode(encoding))
