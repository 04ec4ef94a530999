"""Files vlmscope creates in a folder it writes: never reached through a symbolic link.

An output folder may be shared, or prepared by someone else: a symbolic link planted where
vlmscope keeps its lock, its cache or a file it is about to write would make an ordinary run
open, truncate or overwrite whatever the link points at, outside the folder. Every such file is
therefore opened without following links (`O_NOFOLLOW`) and must turn out to be a regular file;
an SQLite file, which SQLite opens itself, is checked just before it is opened
(`refuse_unowned`), together with its `-wal` and `-shm` companions.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


class NotOwnedFile(OSError):
    """A path where vlmscope keeps a file of its own holds a link or something not a file."""

    def __init__(self, path: str | Path, what: str, expected: str = "a regular file") -> None:
        super().__init__(
            errno.ELOOP,
            f"is {what}, not {expected}; vlmscope writes only files it owns, so it "
            "leaves this path alone (remove it, or write elsewhere)",
            str(path),
        )

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a special file"


def open_owned(path: str | Path, flags: int, mode: int = 0o644) -> int:
    """`os.open(path, flags)` that refuses a symbolic link at `path` and anything that is not a
    regular file (`NotOwnedFile`, naming the path); the caller closes the descriptor."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
            refuse_unowned(path)
        raise
    kind = os.fstat(fd).st_mode
    if not stat.S_ISREG(kind):
        os.close(fd)
        raise NotOwnedFile(path, _kind(kind))
    return fd


def refuse_unowned(path: str | Path, companions: tuple[str, ...] = ()) -> None:
    """`NotOwnedFile` when `path` (or `path` + a suffix of `companions`) exists as a symbolic
    link or as anything but a regular file; nothing when they are absent or regular files."""
    for name in (str(path), *(f"{path}{suffix}" for suffix in companions)):
        try:
            kind = os.lstat(name).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(kind):
            raise NotOwnedFile(name, _kind(kind))


def refuse_linked_folder(folder: str | Path) -> None:
    """`NotOwnedFile` when `folder` is a symbolic link (files written into it would land
    wherever it points) or exists as something other than a folder."""
    try:
        kind = os.lstat(folder).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(kind):
        what = _kind(kind) if not stat.S_ISREG(kind) else "a file"
        raise NotOwnedFile(folder, what, "a folder")
