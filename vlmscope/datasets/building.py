"""Preparing a builder's split so that a bad row stops the build with the row's own error.

`datasets` wraps whatever a generator raises in `DatasetGenerationError` ("An error occurred while
generating the dataset"); the rows readers raise errors that name the row and the field, so that
error is raised again instead, with the same message the track gives. A name the builder does
not offer is refused first, the same way for every builder (`check_name`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import datasets


def check_name(kind: str, name: str, known: Sequence[str]) -> None:
    """Refuse a config (or dataset) a builder does not offer before anything is read, naming the
    ones it does: `kind` says what was asked for ("MEGA-Bench config")."""
    if name not in known:
        raise ValueError(f"unknown {kind} {name!r}; known: {', '.join(known)}")


def prepare_split(
    builder: datasets.DatasetBuilder,
    row_error: type[Exception],
    split: str = "test",
    **prepare: Any,
) -> datasets.Dataset:
    try:
        builder.download_and_prepare(**prepare)
    except datasets.exceptions.DatasetGenerationError as err:
        if isinstance(err.__cause__, row_error):
            raise err.__cause__ from None
        raise
    info = builder.info
    if info.splits is not None and split in info.splits and info.splits[split].num_examples == 0:
        # a config with no rows (ProBench's multi-round in a folder of single-round rows):
        # `as_dataset` refuses an empty split, so the empty split is made here, with its columns
        features = info.features
        assert features is not None
        return datasets.Dataset.from_dict({name: [] for name in features}, features=features)
    ds = builder.as_dataset(split=split)
    assert isinstance(ds, datasets.Dataset)
    return ds
