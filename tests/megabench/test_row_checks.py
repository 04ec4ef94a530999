"""Rows that would change a result unnoticed are refused when read, by the track and the builder
alike, naming the task, the row id and the field; the other rows read as before.

Each case copies the shipped sample and breaks one thing in the `core` config.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vlmscope.config import ImageBudget, OracleModelConfig, TrackConfig
from vlmscope.datasets.megabench import build
from vlmscope.messages import GenerationParams, Response
from vlmscope.tracks.base import ScoringContext
from vlmscope.tracks.megabench.prompt import build_prompt
from vlmscope.tracks.megabench.rows import RowError, read_rows
from vlmscope.tracks.megabench.track import MegaBenchTrack
from vlmscope.tracks.shipped_samples import sample_dir

SAMPLE = sample_dir("megabench")
CORE = Path("core") / "test-00000-of-00001.parquet"
TASK_DIR = "./data/Perception/Sample/sample_single_answer"
Rows = list[dict[str, Any]]


def duplicate_row(rows: Rows, data: Path) -> None:
    rows.append(dict(rows[1]))


def drop_task_meta(rows: Rows, data: Path) -> None:
    meta = json.loads((data / "all_task_meta.json").read_text())
    del meta["sample_single_answer"]
    (data / "all_task_meta.json").write_text(json.dumps(meta))


def unknown_metric(rows: Rows, data: Path) -> None:
    rows[1]["metric_info"] = rows[1]["metric_info"].replace("exact_str_match", "no_such_metric")


def null_answer(rows: Rows, data: Path) -> None:
    rows[1]["answer"] = None


def climbing_path(rows: Rows, data: Path) -> None:
    rows[1]["query_media"] = "['../../../../etc/passwd']"


def absolute_path(rows: Rows, data: Path) -> None:
    rows[1]["query_media"] = "['/etc/passwd']"


def link_out(rows: Rows, data: Path) -> None:
    outside = data.parent / "outside.png"
    shutil.copy(data / TASK_DIR / "q1.png", outside)
    (data / TASK_DIR / "link.png").symlink_to(outside)
    rows[1]["query_media"] = f"['{TASK_DIR}/link.png']"


def example_media_out(rows: Rows, data: Path) -> None:
    for row in rows[:2]:  # a task-level field: the same in every row of the task
        row["example_media"] = "['./data/../../outside.png']"


def frame_link_out(rows: Rows, data: Path) -> None:
    frames = data / "data/Perception/Sample/sample_video_count/clip0_frames"
    (frames / "zz_frame.png").symlink_to(data.parent)


def empty_frames_folder(rows: Rows, data: Path) -> None:
    frames = data / "data/Perception/Sample/sample_video_count/clip0_frames"
    for frame in frames.iterdir():
        frame.rename(frame.with_suffix(".txt"))  # a folder left with files, none of them frames


CASES: dict[str, tuple[Callable[[Rows, Path], None], str]] = {
    "duplicate row": (
        duplicate_row,
        "task 'sample_single_answer', row 1: field 'id' repeats a row already read",
    ),
    "task missing from all_task_meta.json": (
        drop_task_meta,
        "task 'sample_single_answer', row 0: field 'task_name' has no entry in the task metadata",
    ),
    "unknown metric": (
        unknown_metric,
        "task 'sample_single_answer', row 1: field 'metric_info' names unknown metric(s) "
        "'no_such_metric'",
    ),
    "null answer": (
        null_answer,
        "task 'sample_single_answer', row 1: field 'answer' is null or empty",
    ),
    "path climbing out": (
        climbing_path,
        "task 'sample_single_answer', row 1: field 'query_media' names "
        "'../../../../etc/passwd', which resolves to ",
    ),
    "absolute path": (
        absolute_path,
        "task 'sample_single_answer', row 1: field 'query_media' names an absolute path "
        "'/etc/passwd'",
    ),
    "symlink pointing out": (
        link_out,
        f"task 'sample_single_answer', row 1: field 'query_media' names '{TASK_DIR}/link.png', "
        "which resolves to ",
    ),
    "example media out": (
        example_media_out,
        "task 'sample_single_answer', row 0: field 'example_media' names "
        "'./data/../../outside.png'",
    ),
    "video frame linked out": (
        frame_link_out,
        "task 'sample_video_count', row 10: field 'query_media' names "
        "'./data/Perception/Sample/sample_video_count/clip0_frames/zz_frame.png'",
    ),
    "frames folder without a frame": (
        empty_frames_folder,
        "task 'sample_video_count', row 10: field 'query_media' names the frames folder "
        "'./data/Perception/Sample/sample_video_count/clip0_frames', which holds no frame "
        "(.jpeg, .jpg, .png files",
    ),
}


def bad_copy(tmp_path: Path, edit: Callable[[Rows, Path], None]) -> Path:
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    rows = pq.read_table(data / CORE).to_pylist()
    edit(rows, data)
    pq.write_table(pa.Table.from_pylist(rows), data / CORE)
    return data


@pytest.mark.parametrize("case", list(CASES))
def test_bad_row_stops_the_reader_the_track_and_the_builder(tmp_path: Path, case: str) -> None:
    edit, message = CASES[case]
    data = bad_copy(tmp_path, edit)
    with pytest.raises(RowError) as read:
        read_rows(data, "core")
    place, _, rest = str(read.value).partition(": ")
    assert place.startswith(f"{CORE.as_posix()} row ") and rest.startswith(message)
    with pytest.raises(RowError) as track:
        MegaBenchTrack(TrackConfig(name="megabench", data_dir=str(data)), limit=None)
    assert str(track.value) == str(read.value)
    with pytest.raises(RowError) as built:
        build("core", data, cache_dir=tmp_path / "cache")
    assert str(built.value) == str(read.value)
    if case.endswith(" out"):
        assert "outside the data folder" in str(read.value)
    # the rows of the config left alone read exactly as the shipped sample's
    assert read_rows(data, "open") == read_rows(SAMPLE, "open")


def test_a_row_repeated_across_configs_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    with pytest.raises(RowError, match="field 'id' repeats a row already read \\(config 'core'\\)"):
        read_rows(data, "core", "core_single_image")


def test_links_and_a_linked_data_folder_that_stay_inside_are_fine(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    (data / TASK_DIR / "same_as_q1.png").symlink_to(data / TASK_DIR / "q1.png")
    rows = pq.read_table(data / CORE).to_pylist()
    rows[1]["query_media"] = f"['{TASK_DIR}/same_as_q1.png']"
    pq.write_table(pa.Table.from_pylist(rows), data / CORE)
    linked = tmp_path / "linked"
    linked.symlink_to(data)
    assert read_rows(linked, "core")[1].query_media == (f"{TASK_DIR}/same_as_q1.png",)
    assert len(build("core", linked, cache_dir=tmp_path / "cache")) == 14


@pytest.mark.parametrize("media", ["../outside.png", "/etc/passwd"])
def test_the_prompt_builder_opens_no_path_outside_the_data_folder(media: str) -> None:
    row = replace(read_rows(SAMPLE, "core")[1], query_media=(media,))
    with pytest.raises(RowError, match="task 'sample_single_answer', row 1: field 'query_media'"):
        build_prompt(row, SAMPLE, ImageBudget(), params=GenerationParams())


@pytest.mark.parametrize("cot", ["with", "without"])
def test_summary_totals_equal_the_rows_built(cot: str) -> None:
    track = MegaBenchTrack(TrackConfig(name="megabench", options={"cot": cot}), limit=None)
    samples = track.samples(OracleModelConfig(backend="oracle", name="m"))

    async def score_all() -> list[Any]:
        return [
            await track.score(s, Response(s.reference or ""), ScoringContext()) for s in samples
        ]

    scored = asyncio.run(score_all())
    summary = track.summarize(samples, scored).summary()
    model = summary["summary_and_keyword_stats"]["model_summary"]
    counted = sum((model[k] or {}).get("num_eval_samples", 0) for k in ("core", "open"))
    open_rows = 2 if cot == "with" else 0  # Open runs with CoT only
    assert summary["n_rows"] == counted == len(read_rows(SAMPLE, "core")) + open_rows
    with pytest.raises(ValueError, match="task 'sample_single_answer', row 1: no scored result"):
        track.summarize(samples[:1] + samples[2:], scored[:1] + scored[2:])
