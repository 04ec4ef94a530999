"""Every file under a folder as it is now: its path inside the folder, size and modification
time. A cache over a folder's files keys on this listing, so a file rewritten, added or removed
is a new state without reading any contents (the builders' fingerprint,
`vlmscope.datasets.data_fingerprint`; the compare view's kept refits,
`vlmscope.leaderboard.compare.board_fits`): one listing, so the two cannot differ on what a
folder's state is.

Regular files only, a link to one read as its target; a link to a folder is not followed (a
folder linking to itself would never end), and a link to nothing, or a file removed while the
folder is listed, is not there.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FileState = tuple[str, int, int]
"""(path relative to the folder, `/`-separated; size in bytes; modification time in ns)."""


def folder_files(folder: str | Path) -> list[FileState]:
    """The state of every file under `folder`, in walk order: a folder's own files sorted by
    name, then each subfolder's, in name order (the order the builders' fingerprint hashes)."""
    root = Path(folder)
    found = []
    for base, subfolders, names in os.walk(root):
        subfolders.sort()
        for name in sorted(names):
            path = Path(base, name)
            try:
                info = path.stat()
            except FileNotFoundError:
                continue  # a link to nothing, or removed since the folder was read
            if stat.S_ISREG(info.st_mode):
                found.append((path.relative_to(root).as_posix(), info.st_size, info.st_mtime_ns))
    return found


def by_path(files: list[FileState]) -> list[FileState]:
    """The same states sorted by path, a path's parts compared one by one (as `Path`s sort):
    `a/x` comes before `b`, where walk order puts a folder's own file `b` first."""
    return sorted(files, key=lambda file: file[0].split("/"))
