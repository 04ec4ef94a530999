"""Preparing a builder's split so that a bad row stops the build with the row's own error.

`datasets` wraps whatever a generator raises in `DatasetGenerationError` ("An error occurred while
generating the dataset"); the rows readers raise errors that name the row and the field, so that
error is raised again instead, with the same message the track gives. A name the builder does
not offer is refused first, the same way for every builder (`check_name`).

A builder class used directly (`builder.download_and_prepare()`, as `datasets` users do) says
the same: every builder mixes in `NamedRowErrors`, so the `DatasetGenerationError` it raises
carries the row's own message (file, row, field) with the row error as its cause. Each builder
module's `main` ends such an error as one `error:` line and exit status 2 (`export_main`), and
so an export of an input with no rows at all (every config empty), unless `--allow-empty` says
an empty dataset is what is wanted (`refuse_empty`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import datasets

from vlmscope.datasets.export_command import written
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


ALLOW_EMPTY_HELP = "export an input with no rows as an empty dataset (default: an error)"


def refuse_empty(
    built: Mapping[str, datasets.Dataset], data_dir: str | Path | None, allow_empty: bool
) -> None:
    """A ValueError naming the data folder when every config of an export is empty: a wrong
    folder, or a download that wrote nothing, would otherwise export an empty dataset."""
    if allow_empty or any(len(ds) for ds in built.values()):
        return
    where = data_dir if data_dir is not None else "the shipped sample"
    raise ValueError(f"{where}: holds no rows; --allow-empty exports an empty dataset")


def export_main(
    parser: argparse.ArgumentParser, argv: list[str] | None, export: Callable[[Any], Any]
) -> int:
    """Parse `argv` (with `--debug` added to `parser`), print what `export(args)` wrote (each
    config and its row count, `export_command.written`), and end
    bad input as one `error:` line with exit status 2 (`vlmscope.input_errors.guarded`)."""
    parser.add_argument("--allow-empty", action="store_true", help=ALLOW_EMPTY_HELP)
    parser.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)
    args = parser.parse_args(argv)

    def run() -> int:
        print(written(export(args)))  # each config with its row count
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
