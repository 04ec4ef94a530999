"""Preparing a builder's split so that a bad row stops the build with the row's own error.

`datasets` wraps whatever a generator raises in `DatasetGenerationError` ("An error occurred while
generating the dataset"); the rows readers raise errors that name the row and the field, so that
error is raised again instead, with the same message the track gives. A name the builder does
not offer is refused first, the same way for every builder (`check_name`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import datasets

from vlmscope.input_errors import DEBUG_FLAG, DEBUG_HELP, describe, guarded, input_cause


class NamedRowErrors:
    """Mixed into a `datasets` builder (before `GeneratorBasedBuilder`): a generation error
    caused by bad input is raised again with that input error's message."""

    def download_and_prepare(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().download_and_prepare(*args, **kwargs)  # type: ignore[misc]
        except datasets.exceptions.DatasetGenerationError as err:
            cause = input_cause(err.__cause__) if err.__cause__ is not None else None
            if cause is None:
                raise
            raise datasets.exceptions.DatasetGenerationError(describe(cause)) from cause


def export_main(
    parser: argparse.ArgumentParser, argv: list[str] | None, export: Callable[[Any], Any]
) -> int:
    """Parse `argv` (with `--debug` added to `parser`), print what `export(args)` wrote, and end
    bad input as one `error:` line with exit status 2 (`vlmscope.input_errors.guarded`)."""
    parser.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)
    args = parser.parse_args(argv)

    def run() -> int:
        print(export(args))
        return 0

    return guarded(run, debug=args.debug)


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
