"""Where ProBench rows come from: a data folder's files (`vlmscope.tracks.hub_files`).

`rows.py` validates what this yields; both raise `ProBenchDataError`. One split, `train`; the
JSON layout's `image` names a file in `images/` beside the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from vlmscope.tracks import hub_files
from vlmscope.tracks.hub_files import Located

SPLIT = "train"
REQUIRED_COLUMNS = ("uuid", "chat_type", "conversations", "image")
COLUMNS = (*REQUIRED_COLUMNS, "challenge", "category", "language")


class ProBenchDataError(ValueError):
    """A file or row that cannot be used; the message names the uuid and the field."""


def records(folder: Path) -> Iterator[Located]:
    """(file name, record, image folders) for every record found in `folder`."""
    return hub_files.hub_records(
        folder,
        split=SPLIT,
        required=REQUIRED_COLUMNS,
        optional=COLUMNS[len(REQUIRED_COLUMNS) :],
        error=ProBenchDataError,
    )


def read_image_file(name: str, where: str, image_dirs: tuple[Path, ...]) -> bytes:
    """The bytes of a JSON-layout row's image file (see `hub_files.read_image_file`)."""
    return hub_files.read_image_file(name, where, "image", image_dirs, ProBenchDataError)
