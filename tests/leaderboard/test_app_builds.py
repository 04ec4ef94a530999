"""The Space's layout builds for any results folder, empty or odd, without a browser."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.store import ResultStore

SPACE = Path(__file__).resolve().parents[2] / "leaderboard_space"


@pytest.fixture(scope="module")
def space_app():  # noqa: ANN201
    sys.path.insert(0, str(SPACE))  # the Space imports its sibling modules, as `python app.py`
    try:
        import app

        yield app
    finally:
        sys.path.remove(str(SPACE))


def test_an_empty_results_folder_still_gives_a_page(space_app, tmp_path: Path) -> None:  # noqa: ANN001
    demo = space_app.build_app(ResultStore(ResultsLocation.local(tmp_path)))
    labels = [getattr(block, "label", None) for block in demo.blocks.values()]
    assert "Overview" in labels and "Samples" in labels and "MEGA-Bench" not in labels


def test_every_track_gets_a_tab_with_safe_ids(space_app, store: ResultStore) -> None:  # noqa: ANN001
    demo = space_app.build_app(store)
    labels = [getattr(block, "label", None) for block in demo.blocks.values()]
    assert {"Overview", "MEGA-Bench", "SimpleVQA", "VisionArena", "Samples"} <= set(labels)
    ids = [block.elem_id for block in demo.blocks.values() if getattr(block, "elem_id", None)]
    assert "visionarena-table" in ids and all(" " not in i and "<" not in i for i in ids)
    assert space_app.dom_id("a<b> c", "table") == "a-b-c-table"
