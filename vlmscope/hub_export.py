"""Write datasets as a Hub-style folder: parquet shards per config plus a card with `configs:`.

This is the one format vlmscope publishes: track samples exported by the builders and the
result datasets of a run. `load_dataset(folder, config)` opens it locally, and uploading the
folder as-is makes the same thing a Hub dataset repo.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import datasets
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

datasets.disable_progress_bars()


def export_folder(
    folder: str | Path,
    configs: Mapping[str, datasets.Dataset],
    *,
    title: str,
    description: str = "",
    split: str = "test",
    default: str | None = None,
    shard_rows: int = 5000,
) -> Path:
    """Write each config to `folder/<config>/<split>-0000i-of-0000n.parquet` and a README card.

    Old shards of a rewritten config are removed first, so a re-export never mixes runs.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    card_data = DatasetCardData()
    metadata: dict[str, dict[str, object]] = {}
    infos: dict[str, datasets.DatasetInfo] = {}
    for name, ds in configs.items():
        out = folder / name
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        n_shards = max(1, -(-len(ds) // shard_rows))
        for i in range(n_shards):
            shard = ds.shard(num_shards=n_shards, index=i, contiguous=True)
            shard.to_parquet(str(out / f"{split}-{i:05d}-of-{n_shards:05d}.parquet"))
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
    DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n{body}").save(str(folder / "README.md"))
    return folder


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
