"""The `datasets` builder (both configs) and its Hub-style export, offline."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest

from vlmscope.datasets.simplevqa import SimpleVQA, export
from vlmscope.tracks.simplevqa.rows import SimpleVQADataError


def _build(config: str, tmp_path: Path, data_dir: Path | None = None) -> datasets.Dataset:
    builder = SimpleVQA(
        config_name=config,
        data_dir=str(data_dir) if data_dir else None,
        cache_dir=str(tmp_path / "c"),
    )
    builder.download_and_prepare()
    return builder.as_dataset(split="test")


def test_default_config_decodes_images(tmp_path: Path) -> None:
    ds = _build("default", tmp_path)
    assert len(ds) == 6 and isinstance(ds.features["image"], datasets.Image)
    row = ds[0]
    assert row["data_id"] == 0 and row["language"] == "CN" and row["image"].size == (144, 96)
    assert row["task_category"] == "Object Attributes Recognition"
    assert {"atomic_question", "atomic_fact", "vqa_category", "source"} <= set(ds.column_names)


def test_atomic_config_swaps_in_the_atomic_question(tmp_path: Path) -> None:
    ds = _build("atomic", tmp_path)
    row = next(r for r in ds if r["data_id"] == 1013)
    assert (
        row["question"] == "Which two numbers are shown in the image?"
        and row["answer"] == "17 and 25"
    )
    assert row["original_answer"] == "42"


def test_bad_row_fails_the_build_with_its_data_id(
    tmp_path: Path, sample_records, write_parquet
) -> None:
    sample_records[3]["image"] = "@@@"
    with pytest.raises(Exception) as raised:
        _build("default", tmp_path, write_parquet(sample_records))
    chain = [raised.value, raised.value.__cause__, raised.value.__context__]
    assert any(isinstance(e, SimpleVQADataError) and "data_id 1012" in str(e) for e in chain)


def test_export_opens_with_load_dataset(tmp_path: Path) -> None:
    folder = export(tmp_path / "hub", cache_dir=str(tmp_path / "c"))
    assert "configs:" in (folder / "README.md").read_text(encoding="utf-8")
    assert set(datasets.get_dataset_config_names(str(folder))) == {"atomic", "default"}
    atomic = datasets.load_dataset(
        str(folder), "atomic", split="test", cache_dir=str(tmp_path / "l")
    )
    default = datasets.load_dataset(str(folder), split="test", cache_dir=str(tmp_path / "l"))
    assert len(atomic) == len(default) == 6
    assert default[3]["image"].format == "JPEG" and default[3]["answer"] == "Paris"
