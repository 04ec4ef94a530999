"""Where VisionArena rows come from: a data folder's files (`vlmscope.tracks.hub_files`).

`rows.py` validates what this yields; both raise `VisionArenaDataError`. All three datasets
(Chat, Battle, vision-arena-bench-v0.1) publish one split, `train`; image fields of the JSON
layout are file names in `images/` beside the file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from vlmscope.tracks import hub_files
from vlmscope.tracks.hub_files import Located

SPLIT = "train"
#: Per dataset: the columns every row needs, then the optional ones read when present.
REQUIRED_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "chat": ("conversation_id", "model", "conversation"),
    "battle": ("question_id", "model_a", "model_b", "winner", "conversation_a", "conversation_b"),
    "bench": ("question_id", "turns", "images"),
}
OPTIONAL_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "chat": ("images", "num_turns", "translated_conversation", "language", "user_id", "tstamp",
             "is_preset", "preset_dataset", "categories"),
    "battle": ("images", "judge", "num_turns", "turn", "language", "categories", "tstamp",
               "conv_metadata", "is_preset", "anony"),
    "bench": ("category", "cluster"),
}  # fmt: skip


class VisionArenaDataError(ValueError):
    """A file or row that cannot be used; the message names the row's id and the field."""


def records(folder: Path, dataset: str) -> Iterator[Located]:
    """(file name, record, image folders) for every record of `dataset` found in `folder`."""
    return hub_files.hub_records(
        folder,
        split=SPLIT,
        required=REQUIRED_COLUMNS[dataset],
        optional=OPTIONAL_COLUMNS[dataset],
        error=VisionArenaDataError,
    )


def read_image_file(name: str, where: str, field: str, image_dirs: tuple[Path, ...]) -> bytes:
    """The bytes of image file `name` of a JSON-layout row (see `hub_files.read_image_file`)."""
    return hub_files.read_image_file(name, where, field, image_dirs, VisionArenaDataError)
