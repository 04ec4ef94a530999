"""The `datasets` builder (four configs), its Hub-style export and command line, offline."""

from __future__ import annotations

import io
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from PIL import Image

import dataset_scripts.probench
import vlmscope.datasets.probench
from tests.probench.test_rows import sample_records, uuid_of, write_json_layout, write_parquet
from vlmscope.datasets.probench import CONFIGS, FEATURES, ProBench, build, export, main
from vlmscope.hub_export import load_folder
from vlmscope.tracks.probench.rows import CHAT_TYPES, SAMPLE_DIR, ProBenchDataError, read_rows

COUNTS = {"all": 12, "singleround": 5, "multi-round": 4, "multi-linguistic": 3}


def test_configs_hold_the_rows_of_their_chat_type(tmp_path: Path) -> None:
    rows = read_rows(SAMPLE_DIR)
    assert ("all", *CHAT_TYPES) == CONFIGS
    for config in CONFIGS:
        ds = build(config, cache_dir=str(tmp_path / "c"))
        expected = [r.uuid for r in rows if config in ("all", r.chat_type)]
        assert ds["uuid"] == expected and len(ds) == COUNTS[config], config
        assert ds.features == FEATURES and ds.split == "train"


def test_rows_keep_the_upstream_columns_and_nesting(tmp_path: Path) -> None:
    ds = build("all", cache_dir=str(tmp_path / "c"))
    assert isinstance(ds.features["image"], datasets.Image)
    assert isinstance(ds.features["conversations"], datasets.List)
    records = {r["uuid"]: r for r in sample_records()}
    for example, row in zip(ds, read_rows(SAMPLE_DIR), strict=True):
        record = records[row.uuid]
        assert example["conversations"] == record["conversations"]  # `<|img|>` kept
        assert example["image"].size == Image.open(io.BytesIO(row.image)).size
        assert example["image"].format == row.image_format
        assert example["category"] == record["category"] and example["language"] == row.language
        assert example["challenge"] == (record["challenge"] or dict.fromkeys(row.challenge, ""))


def test_builder_reads_a_data_dir(tmp_path: Path) -> None:
    records = sample_records()
    folder = write_json_layout(tmp_path / "json", records[:7])
    ds = build("multi-round", folder, cache_dir=str(tmp_path / "c"))
    assert ds["uuid"] == [r["uuid"] for r in records[5:7]]
    builder = ProBench(
        config_name="singleround", data_dir=str(folder), cache_dir=str(tmp_path / "d")
    )
    builder.download_and_prepare()
    assert len(builder.as_dataset(split="train")) == 5


def test_a_chat_type_without_rows_builds_and_exports_empty(tmp_path: Path) -> None:
    """A folder of single-round rows only: `multi-round` is an empty split with the columns
    (not `datasets`' "corresponds to no data"), and the export writes every config."""
    records = [r for r in sample_records() if r["chat_type"] == "singleround"]
    folder = write_parquet(tmp_path / "single", records)
    empty = build("multi-round", folder, cache_dir=str(tmp_path / "c"))
    assert len(empty) == 0 and empty.features == FEATURES
    hub = export(tmp_path / "hub", folder, cache_dir=str(tmp_path / "c"))
    assert len(load_folder(hub, "singleround", split="train")) == len(records)
    (shard,) = (hub / "multi-round").glob("*.parquet")
    assert pq.read_table(shard).num_rows == 0


def test_bad_row_fails_the_build_with_the_readers_error(tmp_path: Path) -> None:
    records = sample_records()
    uuid = uuid_of(records, "multi-round", 2)
    next(r for r in records if r["uuid"] == uuid)["conversations"].pop()
    folder = write_parquet(tmp_path / "bad", records)
    with pytest.raises(ProBenchDataError) as read:
        read_rows(folder)
    for config in ("all", "singleround"):  # a config without the row still validates it
        with pytest.raises(ProBenchDataError) as built:
            build(config, folder, cache_dir=str(tmp_path / config))
        assert str(built.value) == str(read.value)
    assert str(read.value).startswith(
        f"train-00000-of-00001.parquet, uuid {uuid}: field 'conversations' must alternate"
    )


def test_unknown_config(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown ProBench config 'default'; known: all, single"):
        build("default", cache_dir=str(tmp_path))


def test_export_opens_with_load_dataset(tmp_path: Path) -> None:
    folder = export(tmp_path / "hub", cache_dir=str(tmp_path / "c"))
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "configs:" in card and "multi-round/train-*.parquet" in card
    assert set(datasets.get_dataset_config_names(str(folder))) == set(CONFIGS)
    cache = str(tmp_path / "l")
    multi = datasets.load_dataset(str(folder), "multi-round", split="train", cache_dir=cache)
    default = datasets.load_dataset(str(folder), split="train", cache_dir=cache)
    assert len(multi) == COUNTS["multi-round"] and len(default) == COUNTS["all"]
    rounds = [sum(t["from"] == "human" for t in row["conversations"]) for row in multi]
    assert rounds == [r.rounds for r in read_rows(SAMPLE_DIR, "multi-round")]
    assert multi.features == FEATURES and multi[0]["image"].mode == "RGB"
    for config, count in COUNTS.items():
        assert len(load_folder(folder, config, split="train")) == count


def test_shipped_sample_is_itself_a_hub_layout(tmp_path: Path) -> None:
    """`load_dataset` on the sample folder finds data/train-*.parquet and its features."""
    ds = datasets.load_dataset(str(SAMPLE_DIR), split="train", cache_dir=str(tmp_path))
    assert ds.features == FEATURES and ds["uuid"] == [r.uuid for r in read_rows(SAMPLE_DIR)]


def test_command_line_exports_and_explains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as helped:
        main(["--help"])
    assert helped.value.code == 0
    assert "--data-dir" in capsys.readouterr().out
    assert main(["--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "c")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted([*CONFIGS, "README.md"])
    assert main(["--out", str(tmp_path / "x"), "--data-dir", str(tmp_path / "empty")]) == 2
    assert "data_dir" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_dataset_script_is_the_package_builder() -> None:
    for name in dataset_scripts.probench.__all__:
        assert getattr(dataset_scripts.probench, name) is getattr(vlmscope.datasets.probench, name)
