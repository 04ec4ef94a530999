"""Finding and reading result folders: only inside the results location, never writing."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from huggingface_hub import snapshot_download

from tests.leaderboard.fabricate import ARENA_TRACK, run_colours
from vlmscope.leaderboard.load import (
    OutsideResults,
    ResultsLocation,
    find_result_folders,
    location_from_env,
    read_config_rows,
)
from vlmscope.leaderboard.records import SummaryRecord, latest_per_run
from vlmscope.leaderboard.result_store import Problem, ResultStore, UnknownRun
from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_battles
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.runner.results import BoardResult, write_board_result


def _tree(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in sorted(root.rglob("*"))}


def test_finds_one_folder_per_model_and_track(results_dir: Path) -> None:
    folders = find_result_folders(ResultsLocation.local(results_dir))
    names = sorted(f"{f.parent.name}/{f.name}" for f in folders)
    assert "oracle/megabench" in names and "svqa-weak/simplevqa" in names
    assert "results/arena_board" in names  # a board folder is a result folder of its own
    # oracle, hostile, 2 SimpleVQA, colours, the arena board; the two `--limit` runs
    assert len(names) == 8


def test_store_reads_summaries_and_the_board(store: ResultStore) -> None:
    assert store.tracks() == ["megabench", "simplevqa", "colours", ARENA_TRACK]
    assert store.sample_tracks() == ["megabench", "simplevqa", "colours"]
    assert store.models("simplevqa") == ["svqa-strong", "svqa-weak"]
    assert list(store.boards) == [ARENA_TRACK] and store.problems == []
    assert all(r.model for r in store.summaries)  # a board row is not a model's summary
    with pytest.raises(UnknownRun):
        store.details(ARENA_TRACK, "glm-4v-72b-07")


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


def test_the_latest_run_of_a_model_wins(tmp_path: Path) -> None:
    run_colours(tmp_path / "b_older", n_samples=4)
    time.sleep(1.05)  # result times have whole seconds
    run_colours(tmp_path / "a_newer", n_samples=6)
    store = ResultStore(ResultsLocation.local(tmp_path))
    assert [(r.model, r.n_samples) for r in store.summaries] == [("colour-oracle", 6)]


def _record(finished: str, limit: int | None = None) -> SummaryRecord:
    return SummaryRecord(
        "m", "t", 1, {}, {}, {}, "", finished, finished, Path(finished), limit=limit
    )


def test_a_full_run_wins_over_any_limited_run() -> None:
    """A `--limit` run shows only where the model has no full run of the track, however newer."""
    full, newer_full = _record("2026-01-01"), _record("2026-01-02")
    debug, newer_debug = _record("2026-02-01", limit=1), _record("2026-03-01", limit=2)
    assert latest_per_run([full, debug]) == latest_per_run([debug, full]) == [full]
    assert latest_per_run([newer_debug, full, debug, newer_full]) == [newer_full]
    assert latest_per_run([newer_debug, debug]) == latest_per_run([debug, newer_debug])
    assert latest_per_run([debug, newer_debug]) == [newer_debug]


def _small_board(folder: Path, track: str = "arena") -> Path:
    battles = [{"model_a": "a", "model_b": "b", "winner": w} for w in ("model_a", "model_b")] * 3
    board = RatingBoard.from_json(rate_battles(battles, BattleSettings(rounds=10, seed=0)))
    result = BoardResult(track, board, battles, "test", "", "2026-01-01", "2026-01-01")
    return write_board_result(folder, result)


def _set_board_json(folder: Path, text: str | None) -> None:
    shard = next((folder / "summary").glob("*.parquet"))
    table = pq.read_table(shard)
    column = table.schema.get_field_index("board")
    pq.write_table(table.set_column(column, "board", pa.array([text], pa.string())), shard)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        None,
        "[1, 2]",
        '{"models": ["a"]}',
        '{"models": {"a": {"rating": 1000.0}}}',
        '{"models": {"a": {"rating": "high", "lower": 1, "upper": 2}}}',
        '{"models": {}, "categories": {"ocr": {"no models": 1}}}',
    ],
)
def test_a_board_that_does_not_parse_is_skipped_and_reported(tmp_path: Path, text: str) -> None:
    _small_board(tmp_path / "good", track="fine")
    _set_board_json(_small_board(tmp_path / "runs" / "bad"), text)
    store = ResultStore(ResultsLocation.local(tmp_path))
    assert list(store.boards) == ["fine"] and set(store.boards["fine"].board.models) == {"a", "b"}
    assert len(store.problems) == 1
    problem = store.problems[0]
    assert isinstance(problem, Problem) and problem.folder == "runs/bad"
    assert "'arena'" in problem.error and str(tmp_path) not in problem.error


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
