"""The Space's layout builds for any results folder, empty or odd, without a browser."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.registry import track_specs


def _labels(demo) -> list:  # noqa: ANN001
    return [getattr(block, "label", None) for block in demo.blocks.values()]


def test_an_empty_results_folder_still_gives_a_page(space_app, tmp_path: Path) -> None:  # noqa: ANN001
    app, _, _ = space_app
    demo = app.build_app(ResultStore(ResultsLocation.local(tmp_path)))
    labels = _labels(demo)
    assert "Overview" in labels and "Samples" in labels and "MEGA-Bench" not in labels


def test_every_track_gets_a_tab_with_safe_ids(space_app, store: ResultStore) -> None:  # noqa: ANN001
    app, _, _ = space_app
    demo = app.build_app(store)
    labels = _labels(demo)
    expected = {"Overview", "MEGA-Bench", "SimpleVQA", "Colours", "VisionArena", "Samples"}
    assert expected <= set(labels)
    assert {"Category", "Style control"} <= set(labels)
    ids = [block.elem_id for block in demo.blocks.values() if getattr(block, "elem_id", None)]
    assert {"visionarena-table", "visionarena-category", "visionarena-style"} <= set(ids)
    assert all(" " not in i and "<" not in i for i in ids)
    assert app.dom_id("a<b> c", "table") == "a-b-c-table"


def test_each_track_gets_the_page_its_spec_or_board_names(space_app, store: ResultStore) -> None:  # noqa: ANN001
    _, pages, _ = space_app
    assert {spec.page for spec in track_specs()} <= set(pages.PAGES)
    chosen = {track: pages.page_for(store, track) for track in store.tracks()}
    assert chosen == {
        "megabench": pages.megabench_tab,
        "simplevqa": pages.simplevqa_tab,
        "colours": pages.generic_tab,
        "visionarena": pages.rating_tab,  # no registration: it has a board
    }


def skipped_rows(demo) -> list[list[str]]:  # noqa: ANN001
    """The rows of the overview's skipped-folders table (none when there is no table)."""
    tables = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "skipped-folders"]
    assert len(tables) <= 1
    return tables[0].value["data"] if tables else []


def test_a_skipped_folder_is_listed_on_the_page(space_app, tmp_path: Path) -> None:  # noqa: ANN001
    app, _, _ = space_app
    bad = tmp_path / "_boards" / "x" / "summary"
    bad.mkdir(parents=True)
    row = {"kind": "rating_board", "track": "x", "board": "<b>not json</b>"}
    pq.write_table(pa.Table.from_pylist([row]), bad / "test-00000-of-00001.parquet")
    store = ResultStore(ResultsLocation.local(tmp_path))
    assert [p.folder for p in store.problems] == ["_boards/x"]
    demo = app.build_app(store)
    [(folder, reason)] = skipped_rows(demo)
    assert folder == "_boards/x" and "not parse" in reason
    assert "1 result folder skipped" in app.found_note(store)


def test_no_skipped_folders_no_table(space_app, store: ResultStore) -> None:  # noqa: ANN001
    app, _, _ = space_app
    assert skipped_rows(app.build_app(store)) == [] and "skipped" not in app.found_note(store)
