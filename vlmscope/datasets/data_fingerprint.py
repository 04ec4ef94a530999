"""A builder's cache follows the files it reads, not only the folder's name.

`datasets` keys a prepared build by the builder, the config and its arguments, so a `data_dir`
whose files changed in place (a fixed row, a repaired image, a newer download into the same
folder) was served the earlier build, bad rows and all, until the cache was removed by hand.
`FilesFingerprint` gives the build a hash of every file under `data_dir` (its path, size and
modification time; reading the contents of a benchmark's media would cost as much as the build),
so a changed file prepares a new build and an unchanged folder reuses the cached one. Without
`data_dir` a builder reads the samples shipped in the package, fingerprinted the same way, so a
newer package (or a redrawn sample) is not served the build of the older one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from vlmscope.file_states import folder_files
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT


def files_fingerprint(folder: str | Path) -> str:
    """A hex digest of each file's relative path, size and modification time under `folder`."""
    digest = hashlib.sha256()
    for relative, size, mtime_ns in folder_files(folder):
        digest.update(f"{relative}\0{size}\0{mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


class FilesFingerprint:
    """Mixed into a `datasets` builder (before `GeneratorBasedBuilder`): without an explicit
    `hash`, a builder is cached under the fingerprint of the files it reads (its `data_dir`, or
    the shipped samples)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        folder = kwargs.get("data_dir") or SAMPLES_ROOT
        if kwargs.get("hash") is None and Path(folder).is_dir():
            kwargs["hash"] = files_fingerprint(folder)
        super().__init__(*args, **kwargs)
