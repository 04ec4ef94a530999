"""A track's wide table fits a laptop's window (Chromium driven by Playwright, 1280x800).

MEGA-Bench's headline table, SimpleVQA's rates (an interval beside each of five rates, F, the
headline, last) and ProBench's official table (the three tracks side by side) ran past the
right edge of the page, so a visitor saw SimpleVQA's table without its F and ProBench's
without two of its tracks. Each must scroll sideways nowhere, with every column title inside
the table's frame, whole. Screenshots go to `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.leaderboard import fabricate
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    space_page,
    sync_api,
    tab,
)

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
