"""A rating board fitted without style control says it has no style coefficients, instead of
showing an empty coefficient table under a note describing them; a board with a
style-controlled fit keeps its table (checked in `test_browser`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.leaderboard.fabricate import ARENA_TRACK, BATTLES
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    space_page,
    sync_api,
    tab,
)
from vlmscope import cli as vlmscope_cli
from vlmscope.cli.space.track_pages import NO_STYLE_NOTE, STYLE_NOTE


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    work = tmp_path_factory.mktemp("no_style")
    battles = work / "battles.jsonl"
    rows = BATTLES.read_text(encoding="utf-8").splitlines(keepends=True)[:400]
    battles.write_text("".join(rows), encoding="utf-8")
    results = work / "results"
    board = results / "_boards" / ARENA_TRACK
    argv = ["ratings", "battles", str(battles), "--bootstrap", "5", "--result-dir", str(board)]
    assert vlmscope_cli.main(argv) == 0
    with space_page(results, tmp_path_factory.mktemp("no_style_app")) as page:
        yield page


def test_a_board_without_style_control_says_so(page: sync_api.Page) -> None:
    tab(page, "VisionArena")
    note = page.locator("#visionarena-style-note")
    note.wait_for()
    shown = " ".join(note.inner_text().split())
    assert shown.startswith("No style coefficients: this board was rated without style control")
    assert "--style-control" in shown and STYLE_NOTE[:30] not in shown
    assert page.locator("#visionarena-style-coefficients").is_hidden()
    assert NO_STYLE_NOTE.startswith("No style coefficients")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "board_without_style.png"), full_page=True)
