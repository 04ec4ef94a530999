"""The whole path on the test track with the oracle: config -> run -> result datasets."""

import json
import os
from pathlib import Path

import datasets
import pytest

import run_eval
from vlmscope.hub_export import load_folder
from vlmscope.runner.results import result_dir

CONFIG = Path(__file__).parents[1] / "configs" / "colours_oracle.yaml"


def test_run_writes_loadable_results_and_reuses_cache(tmp_path, capsys):
    out = tmp_path / "results"
    assert run_eval.main(["--config", str(CONFIG), "--output-dir", str(out), "--limit", "10"]) == 0
    table = capsys.readouterr().out
    assert "oracle" in table and "accuracy=1" in table

    folder = result_dir(out, "oracle", "colours", 10)
    details = datasets.load_dataset(
        str(folder), "details", split="test", cache_dir=str(tmp_path / "c")
    )
    assert len(details) == 10
    assert set(details["status"]) == {"ok"}
    assert [json.loads(s)["accuracy"] for s in details["scores"]] == [1.0] * 10
    summary = load_folder(folder, "summary")[0]
    assert summary["scores"]["accuracy"] == 1.0
    assert summary["run_counts"]["generated"] == 10
    assert summary["config_hash"] and "torch" in summary["package_versions"]

    assert run_eval.main(["--config", str(CONFIG), "--output-dir", str(out), "--limit", "12"]) == 0
    summary = load_folder(result_dir(out, "oracle", "colours", 12), "summary")[0]
    counts = summary["run_counts"]
    assert counts["cached"] == 10 and counts["generated"] == 2


def test_the_summary_records_the_limit(tmp_path):
    """A `--limit` run says so in its summary (the leaderboard never shows it over a full run)
    and is written beside the full run's result, which it never replaces; a full run writes
    null."""
    out = tmp_path / "results"
    folder = result_dir(out, "oracle", "colours")
    assert run_eval.main(["--config", str(CONFIG), "--output-dir", str(out)]) == 0
    full = load_folder(folder, "summary")[0]
    assert full["limit"] is None
    assert run_eval.main(["--config", str(CONFIG), "--output-dir", str(out), "--limit", "3"]) == 0
    limited = result_dir(out, "oracle", "colours", 3)
    assert limited == folder.with_name("colours-limit3")
    summary = load_folder(limited, "summary")[0]
    assert (summary["limit"], summary["n_samples"]) == (3, 3)
    assert load_folder(folder, "summary")[0] == full  # the full result is still there


def test_unknown_model_filter_is_an_error(tmp_path, capsys):
    code = run_eval.main(
        ["--config", str(CONFIG), "--output-dir", str(tmp_path), "--models", "nobody"]
    )
    assert code == 2
    assert "--models: nobody" in capsys.readouterr().err


def test_a_filter_naming_nothing_is_an_error_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "out"
    code = run_eval.main(["--config", str(CONFIG), "--output-dir", str(out), "--tracks", " , "])
    assert code == 2
    assert "--tracks: no name given (have: colours)" in capsys.readouterr().err
    assert not out.exists()  # no lock, no cache: nothing ran


def test_a_data_dir_that_is_not_there_names_the_track_in_the_config(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    missing = tmp_path / "no_such_dir"
    config.write_text(
        f"models: [{{backend: oracle}}]\ntracks: [{{name: megabench, data_dir: {missing}}}]\n"
    )
    assert run_eval.main(["--config", str(config), "--output-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{config}: tracks.0 (megabench): " in err and str(missing) in err


@pytest.mark.parametrize("track", ["simplevqa", "visionarena_bench"])
def test_a_subset_of_a_track_without_subsets_is_an_error(tmp_path, capsys, track):
    """Silently ignoring `subset:` would score the whole track under a subset's name."""
    config = tmp_path / "c.yaml"
    config.write_text(
        "models: [{backend: oracle}]\n"
        f"tracks: [{{name: {track}, subset: foo, judge: {{backend: coin}}}}]\n"
    )
    assert run_eval.main(["--config", str(config), "--output-dir", str(tmp_path / "o")]) == 2
    assert f"tracks.0 ({track}): subset: 'foo': " in capsys.readouterr().err


def test_push_to_hub_uploads_the_results_folder(tmp_path, monkeypatch):
    calls = {}

    class FakeApi:
        def create_repo(self, repo_id, **kw):
            calls["create"] = (repo_id, kw)

        def upload_folder(self, **kw):
            calls["upload"] = kw
            folder = Path(kw["folder_path"])
            # what gets uploaded is the folder load_dataset opens
            calls["loaded"] = len(
                load_folder(result_dir(folder, "oracle", "colours", 3), "details")
            )

    monkeypatch.setattr("huggingface_hub.HfApi", FakeApi)
    out = tmp_path / "r"
    args = [
        "--config",
        str(CONFIG),
        "--output-dir",
        str(out),
        "--limit",
        "3",
        "--push-to-hub",
        "org/res",
    ]
    assert run_eval.main(args) == 0
    assert calls["create"][0] == "org/res" and calls["create"][1]["repo_type"] == "dataset"
    assert calls["upload"]["repo_id"] == "org/res" and calls["upload"]["folder_path"] == str(out)
    assert "cache.sqlite*" in calls["upload"]["ignore_patterns"]
    assert calls["loaded"] == 3


@pytest.mark.parametrize("world", [2, 3])
def test_shares_cover_every_item_once(world):
    from vlmscope.runner.distributed import ProcessGroup

    items = list(range(17))
    shares = [ProcessGroup(rank=r, world_size=world).share(items) for r in range(world)]
    assert sorted(x for s in shares for x in s) == items
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


def test_a_track_with_no_rows_still_writes_its_result(tmp_path):
    """An empty data file gives an empty result, not a crash after generation."""
    import pyarrow.parquet as pq

    from tests.leaderboard.fabricate import track_result
    from vlmscope.runner.results import write_result

    folder = write_result(tmp_path, track_result("oracle", "colours", {"accuracy": 0.0}, []))
    assert folder == result_dir(tmp_path, "oracle", "colours")
    (shard,) = (folder / "details").glob("*.parquet")
    assert pq.read_table(shard).num_rows == 0  # (datasets' loader refuses an empty shard)
    assert load_folder(folder, "summary")[0]["scores"] == {"accuracy": 0.0}


def test_a_new_result_replaces_the_old_folder_whole_with_the_tracks_files(tmp_path):
    """The track's own files are written with the datasets, before the folder is swapped in,
    and a file the new run does not write (no table this time) is not left from the old one."""
    from tests.leaderboard.fabricate import track_result
    from vlmscope.runner.results import write_result

    result = track_result("m", "probench", {"score": 1.0}, [])
    written_into = []

    def table(folder: Path) -> None:
        written_into.append((folder, (folder / "summary").is_dir()))
        (folder / "table.md").write_text("| old |\n")

    folder = write_result(tmp_path, result, table)
    assert (folder / "table.md").read_text() == "| old |\n"
    assert written_into == [(folder.with_name(f".probench.tmp-{os.getpid()}"), True)]
    write_result(tmp_path, result)
    assert not (folder / "table.md").exists() and (folder / "summary").is_dir()
