"""The Space's layout builds for any results folder, empty or odd, without a browser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import get_args

import pytest

from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.store import ResultStore
from vlmscope.tracks.spec import PageKind

SPACE = Path(__file__).resolve().parents[2] / "leaderboard_space"


@pytest.fixture(scope="module")
def space_app():  # noqa: ANN201
    sys.path.insert(0, str(SPACE))  # the Space imports its sibling modules, as `python app.py`
    try:
        import app
        import track_pages

        yield app, track_pages
    finally:
        sys.path.remove(str(SPACE))


def _labels(demo) -> list:  # noqa: ANN001
    return [getattr(block, "label", None) for block in demo.blocks.values()]


def test_an_empty_results_folder_still_gives_a_page(space_app, tmp_path: Path) -> None:  # noqa: ANN001
    app, _ = space_app
    demo = app.build_app(ResultStore(ResultsLocation.local(tmp_path)))
    labels = _labels(demo)
    assert "Overview" in labels and "Samples" in labels and "MEGA-Bench" not in labels


def test_every_track_gets_a_tab_with_safe_ids(space_app, store: ResultStore) -> None:  # noqa: ANN001
    app, _ = space_app
    demo = app.build_app(store)
    labels = _labels(demo)
    expected = {"Overview", "MEGA-Bench", "SimpleVQA", "colours", "visionarena", "Samples"}
    assert expected <= set(labels)
    assert {"Category", "Style control"} <= set(labels)
    ids = [block.elem_id for block in demo.blocks.values() if getattr(block, "elem_id", None)]
    assert {"visionarena-table", "visionarena-category", "visionarena-style"} <= set(ids)
    assert all(" " not in i and "<" not in i for i in ids)
    assert app.dom_id("a<b> c", "table") == "a-b-c-table"


def test_each_track_gets_the_page_its_spec_or_board_names(space_app, store: ResultStore) -> None:  # noqa: ANN001
    _, pages = space_app
    assert set(pages.PAGES) == set(get_args(PageKind))
    chosen = {track: pages.page_for(store, track) for track in store.tracks()}
    assert chosen == {
        "megabench": pages.megabench_tab,
        "simplevqa": pages.simplevqa_tab,
        "colours": pages.generic_tab,
        "visionarena": pages.rating_tab,  # no registration: it has a board
    }


def test_a_skipped_folder_is_listed_on_the_page(space_app, tmp_path: Path) -> None:  # noqa: ANN001
    app, _ = space_app
    bad = tmp_path / "_boards" / "x" / "summary"
    bad.mkdir(parents=True)
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = {"kind": "rating_board", "track": "x", "board": "<b>not json</b>"}
    pq.write_table(pa.Table.from_pylist([row]), bad / "test-00000-of-00001.parquet")
    store = ResultStore(ResultsLocation.local(tmp_path))
    assert [p.folder for p in store.problems] == ["_boards/x"]
    demo = app.build_app(store)
    boxes = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "problems"]
    assert len(boxes) == 1 and "_boards/x" in boxes[0].value and "not parse" in boxes[0].value
