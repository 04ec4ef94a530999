"""Finding and reading result folders: only inside the results location, never writing."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

import pytest
from huggingface_hub import snapshot_download

from vlmscope.leaderboard.load import (
    OutsideResults,
    ResultsLocation,
    find_result_folders,
    location_from_env,
    read_config_rows,
)
from vlmscope.leaderboard.store import ResultStore, UnknownRun


def _tree(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in sorted(root.rglob("*"))}


def test_finds_one_folder_per_model_and_track(results_dir: Path) -> None:
    folders = find_result_folders(ResultsLocation.local(results_dir))
    names = sorted(f"{f.parent.name}/{f.name}" for f in folders)
    assert "oracle/megabench" in names and "svqa-weak/simplevqa" in names
    assert len(names) == 7  # oracle, hostile, 2 SimpleVQA, 3 arena


def test_default_location_is_results_and_env_overrides(tmp_path: Path) -> None:
    assert location_from_env({}).root == Path("results").resolve()
    local = location_from_env({"VLMSCOPE_RESULTS_DIR": str(tmp_path)})
    assert local.root == tmp_path.resolve() and local.source == f"folder {tmp_path.name}"
    assert find_result_folders(ResultsLocation.local(tmp_path / "missing")) == []


def test_loading_everything_writes_nothing(results_dir: Path) -> None:
    before = _tree(results_dir)
    store = ResultStore(ResultsLocation.local(results_dir))
    for record in store.summaries:
        store.details(record.track, record.model)
    assert _tree(results_dir) == before


def test_unknown_run_is_refused_not_looked_up(store: ResultStore) -> None:
    with pytest.raises(UnknownRun):
        store.details("megabench", "../../etc")
    with pytest.raises(UnknownRun):
        store.details("../megabench", "oracle")


def test_symlinks_out_of_the_results_are_not_followed(results_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(results_dir / "megabench_run", root / "run")
    outside = tmp_path / "elsewhere"
    shutil.copytree(results_dir / "simplevqa_run", outside)
    os.symlink(outside, root / "linked_run")  # a whole folder pointing out: not walked
    location = ResultsLocation.local(root)
    assert [f.parent.name for f in find_result_folders(location)] == ["oracle"]

    shard = next((root / "run" / "oracle" / "megabench" / "details").glob("*.parquet"))
    shard.unlink()
    os.symlink(next((outside / "svqa-weak" / "simplevqa" / "details").glob("*.parquet")), shard)
    with pytest.raises(OutsideResults):
        read_config_rows(location, root / "run" / "oracle" / "megabench", "details")


def _seed_hub_cache(cache: Path, repo_id: str, local: Path) -> None:
    """The huggingface_hub cache layout: snapshot files are symlinks into `blobs/`."""
    repo = cache / f"datasets--{repo_id.replace('/', '--')}"
    commit = hashlib.sha1(repo_id.encode()).hexdigest()
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        data = path.read_bytes()
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        link = repo / "snapshots" / commit / path.relative_to(local)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)


def test_hub_repo_is_read_from_its_snapshot_offline(results_dir: Path, tmp_path: Path) -> None:
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    _seed_hub_cache(tmp_path / "hub", "org/vlmscope-results", results_dir / "simplevqa_run")
    download = functools.partial(snapshot_download, cache_dir=str(tmp_path / "hub"))
    env = {"VLMSCOPE_RESULTS_REPO": "org/vlmscope-results", "VLMSCOPE_RESULTS_DIR": "ignored"}
    location = location_from_env(env, download=download)
    assert location.source == "Hub dataset org/vlmscope-results"
    store = ResultStore(location)
    assert store.models("simplevqa") == ["svqa-strong", "svqa-weak"]
    assert store.details("simplevqa", "svqa-weak")[0]["response"] == "圆形"
