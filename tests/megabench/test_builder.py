"""The MEGA-Bench builder over the shipped sample (upstream layout) and its Hub-style export."""

import shutil

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vlmscope.datasets.megabench import build, export
from vlmscope.tracks.megabench.rows import RowError, read_rows
from vlmscope.tracks.shipped_samples import sample_dir

SAMPLE = sample_dir("megabench")


@pytest.mark.parametrize(
    ("config", "rows", "tasks"),
    [("core", 14, 7), ("open", 2, 1), ("core_single_image", 8, 4), ("open_single_image", 2, 1)],
)
def test_every_config_builds(tmp_path, config, rows, tasks):
    ds = build(config, SAMPLE, cache_dir=tmp_path)
    assert len(ds) == rows
    assert len(set(ds["task_name"])) == tasks
    assert ds.features["metric_info"] == datasets.Value("string")


def test_export_round_trips_with_images(tmp_path):
    out = export(SAMPLE, tmp_path / "hub", cache_dir=tmp_path / "cache")
    assert "configs:" in (out / "README.md").read_text()
    ds = datasets.load_dataset(str(out), "core", split="test", cache_dir=str(tmp_path / "load"))
    multi = [r for r in ds if r["task_name"] == "sample_min_multi_image"][0]
    assert len(multi["query_images"]) == 2
    assert multi["query_images"][0].size == (96, 64)
    video = [r for r in ds if r["task_name"] == "sample_video_count"][0]
    assert video["query_images"] == []  # frames stay a video, not query images


def _copy_with(tmp_path, column, value, row_index=1):
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    path = data / "core" / "test-00000-of-00001.parquet"
    table = pq.read_table(path).to_pylist()
    table[row_index][column] = value
    pq.write_table(pa.Table.from_pylist(table), path)
    return data, table[row_index]


def test_bad_literal_names_task_row_and_field(tmp_path):
    data, row = _copy_with(tmp_path, "metric_info", "{'field_score_function': {")
    with pytest.raises(RowError) as err:
        read_rows(data, "core")
    message = str(err.value)
    assert (
        row["task_name"] in message and f"row {row['id']}" in message and "metric_info" in message
    )


def test_missing_media_names_the_file(tmp_path):
    data, row = _copy_with(tmp_path, "query_media", "['./data/nowhere.png']")
    with pytest.raises(Exception) as err:
        build("core", data, cache_dir=tmp_path / "c")
    assert "nowhere.png" in str(err.value) and row["task_name"] in str(err.value)


def test_corrupt_image_names_the_row_and_file(tmp_path):
    """A query image that does not decode stops the build naming it, as the other builders do;
    it used to build and fail later, at read time, with a bare UnidentifiedImageError."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    (data / "data/Perception/Sample/sample_single_answer/q0.png").write_bytes(b"not a png")
    with pytest.raises(RowError) as err:
        build("core", data, cache_dir=tmp_path / "c")
    message = str(err.value)
    assert "sample_single_answer" in message and "row 0" in message
    assert "q0.png" in message and "does not decode as an image" in message


def test_task_fields_must_agree(tmp_path):
    data, row = _copy_with(tmp_path, "task_description", "something else")
    with pytest.raises(RowError, match="task_description"):
        read_rows(data, "core")
