"""The overview with every track present fits a laptop's window, and no table title breaks inside
a word (Chromium driven by Playwright).

With every track (the demo's four, and the VisionArena board of the golden battles) the overview
was 1316 px wide in a 1280 px window: a rated track (a board) showed its interval in a column of
its own. Now every number, a rating too, shows its interval under it in its cell, so the table
scrolls sideways nowhere at 1280x800. Column titles, the overview's and the cost table's, wrap
between words (or after a hyphen) only, at 1280 px and at 1000 px, where the overview keeps its
1280 px layout and scrolls in its frame: "Reques-ts" was the cost table's at 1280 px. Scrolled
fully right at 1000 px, the row numbers and the Model column stay pinned in the frame, on top
of the columns that pass under them: numbers were shown without the model they belong to.
Screenshots go to `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.demo_run import DemoRun
from tests.leaderboard import fabricate
from tests.leaderboard.sideways import in_view, scrolled_right
from tests.leaderboard.test_browser import ARTIFACTS, space_page, sync_api
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.rating_view import ci_text
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.track_info import track_title

TABLES = ("#overview-table", "#cost-table")
# Each title's words (split where a browser may break: spaces, and after a hyphen no digit
# follows), with the words that lie on more than one line, and whether the title is cut.
TITLE_WORDS_JS = """(sel) => {
  const table = document.querySelector(sel);
  return [...table.querySelectorAll('thead th.header-cell')].map(th => {
    const span = th.querySelector('.header-content span') || th;
    const split = [];
    const texts = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      const words = /\\S+/g;
      for (let m = words.exec(node.data); m; m = words.exec(node.data)) {
        const cuts = [0];
        for (let i = 1; i < m[0].length; i++)
          if (m[0][i - 1] === '-' && !/\\d/.test(m[0][i])) cuts.push(i);
        cuts.push(m[0].length);
        for (let k = 0; k + 1 < cuts.length; k++) {
          const range = document.createRange();
          range.setStart(node, m.index + cuts[k]);
          range.setEnd(node, m.index + cuts[k + 1]);
          const rows = new Set([...range.getClientRects()].filter(r => r.width > 0)
            .map(r => Math.round(r.top)));
          if (rows.size > 1) split.push(m[0].slice(cuts[k], cuts[k + 1]));
        }
      }
    }
    const content = th.querySelector('.header-content') || th;
    return {title: span.textContent.replace(/\\s+/g, ' ').trim(), split,
            cut: span.scrollWidth > span.clientWidth || content.scrollWidth > content.clientWidth};
  });
}"""
# The overview's column titles and its rows' cells as shown (the rows Gradio has drawn).
CELLS_JS = """() => {
  const table = document.querySelector('#overview-table');
  const titles = [...table.querySelectorAll('thead tr')[0].children]
    .map(th => th.innerText.replace(/\\s+/g, ' ').trim());
  const rows = [...table.querySelectorAll('.virtual-body .virtual-row')];
  return {titles, rows: rows.map(tr => [...tr.children].map(td => td.innerText.trim()))};
}"""
SIDEWAYS_JS = """() => {
  const v = document.querySelector('#overview-table .virtual-table-viewport');
  return [v.scrollWidth, v.clientWidth, document.documentElement.scrollWidth];
}"""


@pytest.fixture(scope="module")
def results(demo_run: DemoRun, tmp_path_factory: pytest.TempPathFactory) -> ResultStore:
    """The demo's results (four tracks, a rating board among them) and the VisionArena board."""
    out = tmp_path_factory.mktemp("every_track") / "results"
    shutil.copytree(demo_run.out, out)
    fabricate.write_arena_board(out / "arena_board")
    return ResultStore(ResultsLocation.local(out))


@pytest.fixture(scope="module")
def page(results: ResultStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    with space_page(
        results.location.root, tmp_path_factory.mktemp("every_app"), width=1280, height=800
    ) as page:
        yield page


def test_every_track_fits_1280_px_with_each_rating_interval_in_its_cell(
    page: sync_api.Page, results: ResultStore
) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_timeout(500)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("#overview-table").screenshot(path=str(ARTIFACTS / "every_track_1280.png"))
    scroll, width, document = page.evaluate(SIDEWAYS_JS)
    assert scroll <= width and document <= 1280, (scroll, width, document)
    shown = page.evaluate(CELLS_JS)
    titles, rows = shown["titles"], shown["rows"]
    assert not [t for t in titles if t.endswith("95% CI")], titles
    boards = {t: r for t, r in results.boards.items() if f"{track_title(t)} rating" in titles}
    assert len(boards) >= 2, titles  # VisionArena-Bench's and VisionArena's
    model = titles.index("Model")
    for track, record in boards.items():
        column = titles.index(f"{track_title(track)} rating")
        checked = 0
        for row in rows:
            entry = record.board.models.get(row[model])
            if entry is None or not ci_text(entry):
                continue
            lines = row[column].splitlines()
            assert float(lines[0]) == pytest.approx(entry.rating, abs=0.05), (track, row)
            assert lines[1] == ci_text(entry), (track, row)  # under the rating, same cell
            checked += 1
        assert checked, f"no rated model of {track} in view"


@pytest.mark.parametrize("width", [1280, 1000])
def test_titles_break_between_words_only(page: sync_api.Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.wait_for_timeout(500)
    for table in TABLES:
        page.locator(table).scroll_into_view_if_needed()
        titles = page.evaluate(TITLE_WORDS_JS, table)
        assert len(titles) >= 8, (table, titles)
        for title in titles:
            assert not title["split"], (width, table, title)
            assert not title["cut"], (width, table, title)
        page.locator(table).screenshot(path=str(ARTIFACTS / f"titles_{table[1:]}_{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})


def test_the_model_stays_in_view_when_the_overview_scrolls_sideways(
    page: sync_api.Page, results: ResultStore
) -> None:
    page.set_viewport_size({"width": 1000, "height": 800})
    page.wait_for_timeout(500)
    page.locator("#overview-table").scroll_into_view_if_needed()
    shown = scrolled_right(page, "#overview-table")
    frame, titles, rows = shown["frame"], shown["titles"], shown["rows"]
    assert shown["page"] <= 1000, shown["page"]  # the table scrolls in its frame, not the page
    assert shown["scroll"] > shown["width"], shown  # it does scroll sideways at 1000 px ...
    assert shown["scrolled"] >= shown["scroll"] - shown["width"] - 1, shown  # ... all the way
    names = [t["title"] for t in titles]
    model = names.index("Model")
    assert model == 1, names  # after the row numbers
    assert not in_view(titles[model + 1], frame), titles[model + 1]  # the first score went by
    assert in_view(titles[-1], frame), titles[-1]  # and the last column came into view
    for pinned in (titles[0], titles[model]):
        assert in_view(pinned, frame) and pinned["on_top"], (pinned, frame)
    assert len(rows) >= 10, len(rows)
    known = {r.model for r in results.summaries}
    known |= {m for record in results.boards.values() for m in record.board.models}
    for row in rows:
        assert row[model]["text"] in known, row[model]
        for pinned in (row[0], row[model]):
            assert in_view(pinned, frame), (pinned, frame)
            assert pinned["on_top"] is not False, pinned  # not hidden under a scrolled cell
        assert row[model]["left"] >= row[0]["right"] - 0.5, row[:2]  # beside the row number
    page.locator("#overview-table").screenshot(path=str(ARTIFACTS / "every_track_1000_right.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
