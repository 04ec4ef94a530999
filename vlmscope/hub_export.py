"""Write datasets as a Hub-style folder: parquet shards per config plus a card with `configs:`.

This is the one format vlmscope publishes: track samples exported by the builders and the
result datasets of a run. `load_dataset(folder, config)` opens it locally, and uploading the
folder as-is makes the same thing a Hub dataset repo.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import datasets
import pyarrow.parquet as pq
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

datasets.disable_progress_bars()

README = "README.md"


def export_folder(
    folder: str | Path,
    configs: Mapping[str, datasets.Dataset],
    *,
    title: str,
    description: str = "",
    split: str = "test",
    default: str | None = None,
    shard_rows: int = 5000,
    extra_files: Callable[[Path], None] | None = None,
) -> Path:
    """Write each config to `folder/<config>/<split>-0000i-of-0000n.parquet` and a README card.

    The folder is written whole under a temporary sibling name and then renamed into place, so a
    reader finds the old folder or the new one, never a mix or a half-written shard; a failure
    (a full disk) leaves the old folder as it was. Old shards of a rewritten config are gone, so
    a re-export never mixes runs; everything else in the folder (other configs, files a track
    wrote next to them) is carried over, unless `extra_files` is given: it writes the rest of
    the new folder (a track's own tables) into the temporary copy, and nothing of the old
    folder is kept, so a file the new run does not write is not left from an old one.
    """
    folder = Path(folder)
    real = folder.resolve()  # a symlinked folder is rewritten where it points, link kept
    if real.exists() and not real.is_dir():
        raise FileExistsError(f"{folder} is a file, not a dataset folder: move it or pick another")
    real.parent.mkdir(parents=True, exist_ok=True)
    _recover_killed_exports(real)
    staging = real.with_name(f".{real.name}.tmp-{os.getpid()}")
    _remove(staging)  # left by a killed earlier run of this same process id
    try:
        staging.mkdir()
        if real.is_dir() and extra_files is None:
            _carry_over(real, staging, skip={*configs, README})
        _write_configs(staging, configs, title, description, split, default, shard_rows)
        if extra_files is not None:
            extra_files(staging)
        _swap_in(staging, real)
    except OSError as err:
        raise _naming(folder, err) from err
    finally:
        _remove(staging)
    return folder


def _recover_killed_exports(real: Path) -> None:
    """Tidy what an export killed part-way left next to `real`, once its process is gone.

    `.<name>.tmp-<pid>` is a half-written copy: removed. `.<name>.old-<pid>` is the previous
    folder, set aside by `_swap_in`; if the export died between its two renames the folder
    itself is missing, and the old one is put back (else it is a leftover, removed). A sibling
    whose process still runs belongs to a live export and is left alone.
    """
    prefix = f".{real.name}."
    for sibling in sorted(real.parent.glob(f"{glob.escape(prefix)}*-*")):
        kind, _, pid = sibling.name[len(prefix) :].rpartition("-")
        if kind not in ("tmp", "old") or not pid.isdigit() or _process_alive(int(pid)):
            continue
        if kind == "old" and not real.exists():
            sibling.rename(real)
        else:
            _remove(sibling)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _naming(folder: Path, err: OSError) -> OSError:
    """The same kind of error (same errno), saying which folder and that the old one is intact."""
    message = (
        f"could not write the dataset folder {folder} ({err.strerror or err}); "
        "the previous folder, if any, is unchanged and no partial copy was left behind"
    )
    return OSError(err.errno, message) if err.errno is not None else OSError(message)


def _write_shard(shard: datasets.Dataset, path: Path) -> None:
    """One parquet shard, with the features in its schema as `Dataset.to_parquet` writes them.

    Written with pyarrow directly: on a full disk, `Dataset.to_parquet` can abort the whole
    process inside pyarrow's column writer (a failed check, SIGABRT) when a column is large,
    where `pq.write_table` raises the `OSError` that `export_folder` turns into a message.
    """
    schema = shard.features.arrow_schema
    table = shard.with_format("arrow")[:]
    pq.write_table(table.cast(schema).replace_schema_metadata(schema.metadata), str(path))


def _write_configs(
    out: Path,
    configs: Mapping[str, datasets.Dataset],
    title: str,
    description: str,
    split: str,
    default: str | None,
    shard_rows: int,
) -> None:
    card_data = DatasetCardData()
    metadata: dict[str, dict[str, object]] = {}
    infos: dict[str, datasets.DatasetInfo] = {}
    for name, ds in configs.items():
        (out / name).mkdir(parents=True)
        n_shards = max(1, -(-len(ds) // shard_rows))
        for i in range(n_shards):
            shard = ds.shard(num_shards=n_shards, index=i, contiguous=True)
            _write_shard(shard, out / name / f"{split}-{i:05d}-of-{n_shards:05d}.parquet")
        entry: dict[str, object] = {
            "data_files": [{"split": split, "path": f"{name}/{split}-*.parquet"}]
        }
        if name == (default or next(iter(configs))):
            entry["default"] = True
        metadata[name] = entry
        infos[name] = datasets.DatasetInfo(features=ds.features, config_name=name)
    MetadataConfigs(metadata).to_dataset_card_data(card_data)
    DatasetInfosDict(infos).to_dataset_card_data(card_data)
    body = f"# {title}\n\n{description}\n\nConfigs: {', '.join(configs)}.\n"
    DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n{body}").save(str(out / README))


def _carry_over(old: Path, new: Path, *, skip: set[str]) -> None:
    """Hard-link (or copy) what the export does not rewrite; the old files are never edited."""
    for entry in old.iterdir():
        if entry.name in skip:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, new / entry.name, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(str(entry), str(new / entry.name))


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _swap_in(staging: Path, folder: Path) -> None:
    """Rename the old folder aside, the new one in, then remove the old one.

    Between the two renames the folder is briefly absent: a reader then fails to find it
    rather than reading a mix of two exports. If the second rename fails, the old folder is
    put back.
    """
    if not folder.exists():
        staging.rename(folder)
        return
    aside = folder.with_name(f".{folder.name}.old-{os.getpid()}")
    _remove(aside)
    folder.rename(aside)
    try:
        staging.rename(folder)
    except OSError:
        aside.rename(folder)
        raise
    _remove(aside)


def _remove(path: Path) -> None:
    """Best effort: what cannot be removed stays, and must not hide the error being raised."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        path.unlink(missing_ok=True)


def load_folder(folder: str | Path, config: str, *, split: str = "test") -> datasets.Dataset:
    """Open one config of an exported folder, never from a stale cache.

    `load_dataset(local_dir, config)` keys its cache on the folder name and README alone, so a
    folder rewritten in place (or another folder of the same name) can come back with old rows.
    The parquet loader keys on the files themselves, and the features travel in the parquet
    schema.
    """
    files = sorted(str(p) for p in (Path(folder) / config).glob(f"{split}-*.parquet"))
    if not files:
        raise FileNotFoundError(f"no {split} parquet files for config {config!r} in {folder}")
    ds = datasets.load_dataset("parquet", data_files={split: files}, split=split)
    assert isinstance(ds, datasets.Dataset)
    return ds
