"""Write a result file so that a reader sees the old file or the new one, never half of one.

A file is written beside its target under a temporary name (`.<name>.partial-<pid>`) and renamed
over it: a rename within one folder is atomic on POSIX file systems, so the Space, a second
process or the official tools reading the folder meanwhile never parse a truncated JSON. A write
that fails (disk full, killed mid-way) leaves the previous file as it was and removes its partial
copy when it can; a partial copy left by a killed process is only ever an extra hidden file.
The partial copy is created afresh without following links (`vlmscope.owned_files`), so a link
planted under its name is replaced, never written through; the rename then replaces whatever
sits at the target's name (a link included) rather than writing where it points.
"""

from __future__ import annotations

import os
from pathlib import Path

from vlmscope.owned_files import open_owned


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` through a temporary file and a rename; creates parent folders."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        partial.unlink(missing_ok=True)
        fd = open_owned(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return target


def write_all(fd: int, data: bytes) -> None:
    """Every byte of `data` to the open file `fd` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """:func:`write_bytes_atomic` of `text` encoded."""
    return write_bytes_atomic(path, text.encode(encoding))
