"""The three `datasets` builders, their Hub-style export and command line, offline."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest

import dataset_scripts.visionarena
import vlmscope.datasets.visionarena
from tests.visionarena.test_rows import sample_records, write_json
from vlmscope.datasets.visionarena import BUILDERS, build, export, main
from vlmscope.tracks.visionarena.rows import (
    SAMPLE_DIR,
    VisionArenaDataError,
    read_battle_rows,
    read_bench_rows,
    read_chat_rows,
)

COUNTS = {"chat": 3, "battle": 100, "bench": 4}


@pytest.mark.parametrize("dataset", sorted(BUILDERS))
def test_export_opens_with_load_dataset(tmp_path: Path, dataset: str) -> None:
    folder = export(dataset, tmp_path / "hub", cache_dir=str(tmp_path / "c"))
    ds = datasets.load_dataset(str(folder), split="train", cache_dir=str(tmp_path / "l"))
    assert len(ds) == COUNTS[dataset] and ds.features == BUILDERS[dataset].FEATURES
    assert ds[0]["images"][0].mode == "RGB"


def test_built_rows_read_back_as_the_same_rows(tmp_path: Path) -> None:
    for dataset, read in (("chat", read_chat_rows), ("battle", read_battle_rows),
                          ("bench", read_bench_rows)):  # fmt: skip
        folder = export(dataset, tmp_path / dataset, cache_dir=str(tmp_path / "c"))
        rows = read(folder / "default")
        expected = read(SAMPLE_DIR / dataset)
        if dataset == "battle":  # the export fills in the computed conv_metadata
            assert [r.question_id for r in rows] == [r.question_id for r in expected]
            assert all(r.conv_metadata for r in rows)
        else:
            assert rows == expected, dataset


def test_shipped_samples_are_hub_layouts(tmp_path: Path) -> None:
    for dataset, builder in BUILDERS.items():
        ds = datasets.load_dataset(str(SAMPLE_DIR / dataset), split="train",
                                   cache_dir=str(tmp_path / dataset))  # fmt: skip
        # the shipped samples are upstream-shaped: the Battle builder adds the columns the
        # leaderboard reads beyond them (anony, dedup_tag)
        expected = {k: v for k, v in builder.FEATURES.items() if k not in ("anony", "dedup_tag")}
        assert ds.features == expected and len(ds) == COUNTS[dataset]


def test_bad_row_fails_the_build_with_the_readers_error(tmp_path: Path) -> None:
    records = sample_records("battle")[:5]
    records[3]["winner"] = "both"
    folder = write_json(tmp_path / "bad", records)
    with pytest.raises(VisionArenaDataError) as read:
        read_battle_rows(folder)
    with pytest.raises(VisionArenaDataError) as built:
        build("battle", folder, cache_dir=str(tmp_path / "c"))
    assert str(built.value) == str(read.value)
    with pytest.raises(ValueError, match="unknown VisionArena dataset 'arena'"):
        build("arena")


def test_command_line_exports_and_explains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as helped:
        main(["--help"])
    assert helped.value.code == 0 and "--data-dir" in capsys.readouterr().out
    assert main(["bench", "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "c")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["README.md", "default"]
    assert main(["chat", "--out", str(tmp_path / "x"), "--data-dir", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err.startswith("error: data_dir ")


def test_dataset_script_is_the_package_builder() -> None:
    for name in dataset_scripts.visionarena.__all__:
        assert getattr(dataset_scripts.visionarena, name) is getattr(
            vlmscope.datasets.visionarena, name
        )
