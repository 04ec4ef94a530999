"""The Space degrades, it does not die: each damaged result folder is skipped and listed with its
reason, every other result still shows, and details that fail only when opened show an error
in the sample browser for that run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.leaderboard.broken import (
    BAD,
    GOOD,
    PAGES_DAMAGED,
    SCORES,
    TRACK,
    UNKNOWN_TRACK,
    damage_pages,
    shard,
    write_old_format,
    write_run,
)
from vlmscope.leaderboard import records
from vlmscope.leaderboard import result_store as store_module
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.records import BadResult, NewerFormat, format_version, summary_record
from vlmscope.leaderboard.result_store import ResultStore, UnreadableDetails
from vlmscope.runner import results as writer


@pytest.fixture(scope="module")
def degraded(degraded_dir: Path) -> ResultStore:
    return ResultStore(ResultsLocation.local(degraded_dir))


def test_each_bad_folder_is_skipped_and_named_with_its_reason(
    degraded: ResultStore, degraded_dir: Path
) -> None:
    problems = {p.folder: p.error for p in degraded.problems}
    assert set(problems) == set(BAD)
    for folder, reason in BAD.items():
        assert reason in problems[folder], folder
    assert all(str(degraded_dir) not in error for error in problems.values())
    assert {(r.model, r.track) for r in degraded.summaries} == set(GOOD.items())


def test_the_overview_shows_every_good_run(degraded: ResultStore) -> None:
    frame = overview_frame(degraded.summaries, degraded.boards)
    assert set(frame["Model"]) == set(GOOD)
    shown = frame.set_index("Model")
    assert shown.loc["good-model", "MEGA-Bench overall"] == 100 * SCORES["overall"]
    assert shown.loc["format-1-model", "MEGA-Bench Core"] == 100 * SCORES["core"]
    assert shown.loc["format-2-model", "MEGA-Bench Core"] == 100 * SCORES["core"]
    assert shown.loc["mystery-model", "mystery hit_rate"] == 75.0  # its first numbers
    assert shown.loc[PAGES_DAMAGED, "MEGA-Bench overall"] == 100 * SCORES["overall"]


def test_the_app_builds_and_lists_the_skipped_folders(space_app, degraded: ResultStore) -> None:  # noqa: ANN001
    app, pages, _ = space_app
    demo = app.build_app(degraded)
    labels = [getattr(block, "label", None) for block in demo.blocks.values()]
    assert {"Overview", "MEGA-Bench", UNKNOWN_TRACK, "Samples"} <= set(labels)
    assert pages.page_for(degraded, UNKNOWN_TRACK) is pages.generic_tab
    tables = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "skipped-folders"]
    shown = {folder: reason for folder, reason in tables[0].value["data"]}
    assert shown == {p.folder: p.error for p in degraded.problems}
    assert f"{len(BAD)} result folders skipped" in app.found_note(degraded)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_every_summary_format_reads_alike(tmp_path: Path, version: int) -> None:
    folder = write_run(tmp_path, "model")
    if version < 3:
        write_old_format(folder, version)
    schema = pq.read_schema(shard(folder, "summary"))
    assert ("format_version" in schema.names) == (version > 1)
    assert pa.types.is_struct(schema.field("scores").type) == (version == 3)
    assert set(records.SUMMARY_COLUMNS) <= set(schema.names)
    store = ResultStore(ResultsLocation.local(tmp_path))
    assert store.problems == []
    [record] = store.summaries
    assert (record.model, record.track, record.n_samples) == ("model", TRACK, 1)
    assert record.scores == SCORES and record.outcome_counts == {"ok": 1}
    assert store.details(TRACK, "model")[0]["response"] == "blue"


def test_the_reader_knows_the_writers_format() -> None:
    assert records.FORMAT_VERSION == writer.FORMAT_VERSION


def _row(**changes: Any) -> dict[str, Any]:
    row = {column: "" for column in records.SUMMARY_COLUMNS}
    return {**row, "model": "m", "track": "t", "n_samples": 1, "scores": "{}", **changes}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"format_version": 4}, "written by a newer vlmscope (format 4); upgrade to read it"),
        ({"format_version": 3, "scores": [0.5]}, "scores is a list, not a JSON object"),
        ({"format_version": 3, "scores": "[0.5]"}, "scores is a list, not a JSON object"),
        ({"format_version": "2"}, "format_version '2' is not a format version"),
        ({"format_version": 0}, "format_version 0 is not a format version"),
        ({"scores": "[1, 2]"}, "scores is a list, not a JSON object"),
        ({"scores": "0.5"}, "scores is a number, not a JSON object"),
        ({"scores": "null"}, "scores is null, not a JSON object"),
        ({"scores": None}, "scores is not JSON, not a JSON object"),
        ({"scores": "{oops"}, "scores is not JSON, not a JSON object"),
        ({"model": None}, "the summary names no model"),
        ({"track": ""}, "the summary names no track"),
        ({"n_samples": "many"}, "n_samples 'many' is not a count"),
        ({"n_samples": -1}, "n_samples -1 is not a count"),
        ({"limit": 0}, "limit 0 is not a sample limit"),
        ({"limit": -2}, "limit -2 is not a sample limit"),
        ({"limit": "3"}, "limit '3' is not a sample limit"),
        ({"limit": True}, "limit True is not a sample limit"),
    ],
)
def test_a_summary_row_that_cannot_be_shown_says_why(changes: dict, reason: str) -> None:
    with pytest.raises(BadResult) as raised:
        summary_record(_row(**changes), Path("x"))
    assert str(raised.value) == reason


def test_a_summary_without_a_limit_is_a_full_run() -> None:
    """Summaries from before the `limit` column, and those of full runs (null, or -1)."""
    for row in (_row(), _row(limit=None), _row(limit=-1), _row(format_version=1)):
        record = summary_record(row, Path("x"))
        assert record.limit is None and not record.limited
    record = summary_record(_row(limit=5), Path("x"))
    assert record.limit == 5 and record.limited


def test_format_versions() -> None:
    assert format_version({}) == format_version({"format_version": None}) == 1
    assert format_version({"format_version": 2}) == 2
    assert format_version({"format_version": 3}) == 3
    with pytest.raises(NewerFormat):
        format_version({"format_version": 4})
    with pytest.raises(BadResult):
        format_version({"format_version": True})
    assert summary_record(_row(format_version=1), Path("x")).model == "m"


def test_format_3_reads_typed_columns_and_formats_1_and_2_read_json_text() -> None:
    """The same summary in each format reads as the same record: structs from format 3, JSON
    text before it (a null struct is an empty object, written for `{}`)."""
    typed = {"scores": {"F": 0.5, "ci": [0.1, 0.9]}, "status_counts": {"ok": 2},
             "outcome_counts": {"ok": 1, "judge_unparseable": 1}}  # fmt: skip
    as_text = {name: json.dumps(value) for name, value in typed.items()}
    records = [
        summary_record(_row(format_version=3, **typed), Path("x")),
        summary_record(_row(format_version=2, **as_text), Path("x")),
        summary_record(_row(**as_text), Path("x")),
    ]
    assert all(r.scores == typed["scores"] and r.unparseable == 1 for r in records)
    assert all(r.status_counts == {"ok": 2} for r in records)
    empty = summary_record(_row(format_version=3, scores=None, status_counts=None), Path("x"))
    assert (empty.scores, empty.status_counts) == ({}, {})


def test_a_file_leading_outside_the_results_is_a_skipped_folder(tmp_path: Path) -> None:
    root = tmp_path / "results"
    write_run(root, "good-model")
    linked = write_run(root, "linked-model")
    outside = shard(write_run(tmp_path / "elsewhere", "other"), "summary")
    shard(linked, "summary").unlink()
    os.symlink(outside, linked / "summary" / outside.name)
    store = ResultStore(ResultsLocation.local(root))
    [problem] = store.problems
    assert problem.folder == f"linked-model/{TRACK}"
    assert "leads outside the results location" in problem.error
    assert str(tmp_path) not in problem.error
    assert [r.model for r in store.summaries] == ["good-model"]


def test_details_that_fail_when_opened_show_an_error_in_the_browser(
    space_app,  # noqa: ANN001
    tmp_path: Path,
) -> None:
    _, _, sample_page = space_app
    write_run(tmp_path, "good-model")
    damage_pages(shard(write_run(tmp_path, "damaged-model"), "details"))
    store = ResultStore(ResultsLocation.local(tmp_path))
    assert store.problems == [] and store.models(TRACK) == ["damaged-model", "good-model"]
    for _ in range(2):  # the failure is kept, and raised again, not cached as no rows
        with pytest.raises(UnreadableDetails, match="does not read as parquet"):
            store.details(TRACK, "damaged-model")

    browser = sample_page.SampleBrowser(store, {})
    _tasks, _samples, status, *_views = browser.pick_model(TRACK, "damaged-model")
    assert status.startswith("the samples of damaged-model on megabench cannot be shown: ")
    assert "details/test-00000-of-00001.parquet does not read as parquet" in status
    assert str(tmp_path) not in status
    _tasks, samples, status, *_views = browser.pick_model(TRACK, "good-model")
    assert samples["value"] == "good-model/0" and status == "status: ok; outcome: ok"


def test_an_unexpected_error_in_one_folder_skips_that_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_run(tmp_path, "good-model")
    surprising = write_run(tmp_path, "surprising-model")
    real = store_module.summary_record

    def summary_or_surprise(row: dict, folder: Path) -> Any:
        if folder == surprising.resolve():
            raise RuntimeError(f"surprise in {folder}")
        return real(row, folder)

    monkeypatch.setattr(store_module, "summary_record", summary_or_surprise)
    store = ResultStore(ResultsLocation.local(tmp_path))
    [problem] = store.problems
    assert problem.folder == f"surprising-model/{TRACK}"
    assert problem.error == f"unexpected RuntimeError: surprise in …/surprising-model/{TRACK}"
    assert [r.model for r in store.summaries] == ["good-model"]
