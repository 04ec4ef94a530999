"""`vlmscope run` (and its dry run) on data that holds no rows for a track is refused before any
model loads, naming the track, the folder and the files the track expected there; exit 2.

The folders are copies of the shipped samples whose parquet files keep their columns and lose
every row: the files a reader looks for are there, so only the row check can refuse them. The
run's first model is an `hf` model whose folder does not exist: had a model been loaded, the
error would be about that folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from vlmscope.cli import main
from vlmscope.config import TrackConfig
from vlmscope.hub_data import DataOrigin
from vlmscope.runner.data_rows import data_source
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT

COIN = {"backend": "coin", "name": "coin-judge"}
TRACKS: dict[str, tuple[str, dict[str, Any], str]] = {
    "megabench": (
        "megabench",
        {"subset": "core"},
        "MEGA-Bench rows of subset 'core': core/*.parquet, data/core/*.parquet, core.parquet "
        "or core.jsonl",
    ),
    "simplevqa": (
        "simplevqa",
        {"options": {"grader": "offline_match"}},
        "SimpleVQA rows in test.parquet, or one .json/.jsonl file",
    ),
    "probench": (
        "probench",
        {"judge": COIN},
        "ProBench rows in data/train-*.parquet, train.parquet or *.parquet, or one "
        ".json/.jsonl file",
    ),
    "visionarena_bench": (
        "visionarena/bench",
        {"judge": COIN, "options": {"baseline": "oracle"}},
        "vision-arena-bench-v0.1 rows in data/train-*.parquet, train.parquet or *.parquet, "
        "or one .json/.jsonl file",
    ),
}


def _emptied(tmp_path: Path, sample: str) -> Path:
    folder = tmp_path / sample.replace("/", "_")
    shutil.copytree(SAMPLES_ROOT / sample, folder)
    for shard in folder.rglob("*.parquet"):
        pq.write_table(pq.read_table(shard).slice(0, 0), shard)
    return folder


def _config(tmp_path: Path, track: dict[str, Any]) -> Path:
    raw = {
        "output_dir": str(tmp_path / "out"),
        "models": [
            {"backend": "hf", "name": "never-loaded", "path": str(tmp_path / "no-model")},
            {"backend": "oracle"},
        ],
        "tracks": [track],
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize("dry", [False, True], ids=["run", "dry-run"])
@pytest.mark.parametrize("name", list(TRACKS))
def test_a_track_with_no_rows_is_refused_before_any_model_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, dry: bool
) -> None:
    sample, fields, expected = TRACKS[name]
    data = _emptied(tmp_path, sample)
    config = _config(tmp_path, {"name": name, "data_dir": str(data), **fields})
    assert main(["run", "--config", str(config), *(["--dry-run"] if dry else [])]) == 2
    assert capsys.readouterr().err == (
        f"error: {config}: tracks.0 ({name}): data folder {data} holds no rows for the {name} "
        f"track; expected {expected}\n"
    )
    assert not (tmp_path / "out").exists()


def test_the_same_folder_with_its_rows_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check can pass: the shipped sample itself dry-runs."""
    data = tmp_path / "simplevqa"
    shutil.copytree(SAMPLES_ROOT / "simplevqa", data)
    track = {"name": "simplevqa", "data_dir": str(data), "options": {"grader": "offline_match"}}
    assert main(["run", "--config", str(_config(tmp_path, track)), "--dry-run"]) == 0
    assert "holds no rows" not in capsys.readouterr().err


def test_a_hub_dataset_is_named_by_repo_and_revision(tmp_path: Path) -> None:
    origin = DataOrigin("m-a-p/SimpleVQA", "v1", "abc", "f", 0, tmp_path)
    config = TrackConfig(name="simplevqa", data_dir=str(tmp_path))
    assert data_source(config, origin) == (
        f"Hub dataset m-a-p/SimpleVQA@v1 (fetched to {tmp_path})"
    )
