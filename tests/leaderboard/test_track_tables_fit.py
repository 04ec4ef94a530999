"""A track's wide table fits a laptop's window (Chromium driven by Playwright, 1280x800).

MEGA-Bench's headline table, SimpleVQA's rates (an interval beside each of five rates, F, the
headline, last) and ProBench's official table (the three tracks side by side) ran past the
right edge of the page, so a visitor saw SimpleVQA's table without its F and ProBench's
without two of its tracks. Each must scroll sideways nowhere, with every column title inside
the table's frame, whole. Their titles break between words only, at 1280 px and at 1000 px
("Gra/ded", "Multi-/ro/und" were SimpleVQA's and ProBench's at 1000 px), where each keeps its
1280 px layout and scrolls sideways in its frame: scrolled fully right, the model's name (and
MEGA-Bench's rank before it) stays pinned in view, and every column, SimpleVQA's F too, comes
into view. Screenshots go to `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.leaderboard import fabricate
from tests.leaderboard.sideways import in_view, scrolled_right
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    space_page,
    sync_api,
    tab,
)
from tests.leaderboard.test_overview_every_track import TITLE_WORDS_JS

# Each title of the table: its text, its box, the frame's right edge, and whether it is cut.
TITLES_JS = """(sel) => {
  const table = document.querySelector(sel);
  const frame = table.querySelector('.virtual-table-viewport');
  const right = frame.getBoundingClientRect().right;
  const titles = [...table.querySelectorAll('thead th.header-cell')].map(th => {
    const text = th.querySelector('.header-content span') || th;
    const box = th.getBoundingClientRect();
    return {title: text.innerText.replace(/\\s+/g, ' ').trim(), right: box.right,
            frame_right: right, cut: text.scrollWidth > text.clientWidth};
  });
  return {titles, scroll: frame.scrollWidth, width: frame.clientWidth};
}"""
TABLES = [
    ("MEGA-Bench", "#megabench-headline", "Single-image overall 95% CI"),
    ("SimpleVQA", "#simplevqa-table", "F 95% CI"),
    ("ProBench", "#probench-official", "Multi-linguistic Avg tokens"),
]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    results = tmp_path_factory.mktemp("fit_results") / "results"
    fabricate.run_megabench_oracle(results / "megabench_run")
    fabricate.run_simplevqa(results / "simplevqa_run")
    fabricate.write_probench_results(results / "probench_run")
    with space_page(results, tmp_path_factory.mktemp("fit_app"), width=1280, height=800) as page:
        yield page


@pytest.mark.parametrize(("page_name", "selector", "headline"), TABLES)
def test_a_wide_track_table_fits_a_1280_px_window(
    page: sync_api.Page, page_name: str, selector: str, headline: str
) -> None:
    tab(page, page_name)
    page.wait_for_selector(f"{selector} thead th.header-cell")
    page.wait_for_timeout(300)
    shown = page.evaluate(TITLES_JS, selector)
    titles = shown["titles"]
    assert headline in [t["title"] for t in titles]
    assert shown["scroll"] <= shown["width"], shown  # no sideways scrolling
    for title in titles:
        assert title["right"] <= min(1280, title["frame_right"] + 0.5), title
        assert not title["cut"], title
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(selector).screenshot(path=str(ARTIFACTS / f"fit_{selector[1:]}.png"))


@pytest.mark.parametrize("width", [1280, 1000])
@pytest.mark.parametrize(("page_name", "selector", "headline"), TABLES)
def test_a_wide_track_table_breaks_titles_between_words_only(
    page: sync_api.Page, page_name: str, selector: str, headline: str, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    tab(page, page_name)
    page.wait_for_selector(f"{selector} thead th.header-cell")
    page.wait_for_timeout(400)
    titles = page.evaluate(TITLE_WORDS_JS, selector)
    assert headline in [t["title"] for t in titles], titles
    for title in titles:
        assert not title["split"], (width, selector, title)  # "Gra/ded" at 1000 px
        assert not title["cut"], (width, selector, title)
    page.locator(selector).screenshot(path=str(ARTIFACTS / f"titles_{selector[1:]}_{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})


@pytest.mark.parametrize(("page_name", "selector", "headline"), TABLES)
def test_below_1280_px_width_a_wide_track_table_scrolls_with_the_model_pinned(
    page: sync_api.Page, page_name: str, selector: str, headline: str
) -> None:
    page.set_viewport_size({"width": 1000, "height": 800})
    tab(page, page_name)
    page.wait_for_selector(f"{selector} thead th.header-cell")
    page.wait_for_timeout(400)
    shown = scrolled_right(page, selector)
    frame, titles, rows = shown["frame"], shown["titles"], shown["rows"]
    assert shown["page"] <= 1000, shown["page"]  # the table scrolls in its frame, not the page
    assert shown["scroll"] > shown["width"], shown
    names = [t["title"] for t in titles]
    pinned = names.index("Model") + 1  # MEGA-Bench's rank before it too
    assert names[:pinned] in (["Model"], ["Rank", "Model"]), names
    edge = titles[pinned - 1]["right"]
    for title in titles[:pinned]:
        assert in_view(title, frame) and title["on_top"], (title, frame)
    assert not in_view(titles[pinned], frame) or titles[pinned]["left"] < edge - 0.5  # went by
    for title in titles[pinned:]:  # every column comes into view, right of the pinned ones
        assert title["right"] <= frame["right"] + 0.5, (title, frame)
        assert title["right"] - title["left"] <= frame["right"] - edge, (title, frame)
    headline_title = titles[names.index(headline)]
    assert in_view(headline_title, frame) and headline_title["on_top"], headline_title
    if page_name == "SimpleVQA":  # the headline F, and its interval, in view once scrolled
        f = titles[names.index("F")]
        assert in_view(f, frame) and f["left"] >= edge - 0.5 and f["on_top"], (f, edge)
    assert rows, selector
    for row in rows:
        for cell in row[:pinned]:
            assert in_view(cell, frame) and cell["on_top"] is not False, (cell, frame)
        assert row[pinned - 1]["left"] >= row[0]["left"], row[:pinned]
        if pinned == 2:  # the model right beside its rank, not over it
            assert row[1]["left"] == pytest.approx(row[0]["right"], abs=0.5), row[:2]
    page.locator(selector).screenshot(path=str(ARTIFACTS / f"fit_{selector[1:]}_1000_right.png"))
    page.set_viewport_size({"width": 1280, "height": 800})
