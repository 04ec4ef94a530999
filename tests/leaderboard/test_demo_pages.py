"""The demo, run for real and served by the Space in Chromium: every page says what its numbers
stand on, and the overview fits a 1280 px window.

The demo's verdicts come from the coin, SimpleVQA's grades from `offline_match`, and one of its
models (and MEGA-Bench's judge) is a random-weight tiny model; the overview and each track page
must name them in a banner above the numbers. Ratings are drawn as points with interval
whiskers, not bars. Screenshots at 1280 px go to `test-artifacts/leaderboard/` (the overview,
the ProBench board with its banner).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.demo_run import DemoRun
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    CHROMIUM,
    LAUNCH_ARGS,
    TITLES_JS,
    browse,
    serve,
    sync_api,
    tab,
    wait_for_error_bars,
)

WIDTH = 1280
BANNERS = {  # tab: (banner element, names it must show)
    "MEGA-Bench": ("#megabench-stand-in-banner", ("tiny-llava", "tiny-judge")),
    "ProBench": ("#probench-stand-in-banner", ("tiny-llava", "coin-judge")),
    "SimpleVQA": ("#simplevqa-stand-in-banner", ("tiny-llava", "offline_match")),
    "VisionArena-Bench": ("#visionarena_bench-stand-in-banner", ("tiny-llava", "coin-judge")),
}


@pytest.fixture(scope="module")
def page(demo_run: DemoRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is not installed (apt-get install chromium)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    workdir = tmp_path_factory.mktemp("demo_app")
    with serve(demo_run.out, workdir) as (url, _), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url, width=WIDTH, height=900) as watched:
            yield watched.page
        browser.close()


def test_the_demo_overview_fits_1280_px_and_names_its_stand_ins(page: sync_api.Page) -> None:
    tab(page, "Overview")
    page.wait_for_timeout(400)
    page.screenshot(path=str(ARTIFACTS / "demo_overview_1280.png"))
    banner = page.locator("#overview-stand-in-banner").inner_text()
    assert "measure nothing" in banner
    assert all(name in banner for name in ("coin-judge", "tiny-llava", "offline_match"))
    titles = page.evaluate(TITLES_JS)
    assert len(titles) >= 16  # ten score columns of four tracks, then the run columns
    for title in titles:
        assert title["left"] >= 0 and title["right"] <= WIDTH, title
        assert title["right"] <= title["frame_right"] + 0.5, title
        assert not title["cut"], title
    sideways = page.evaluate(
        "() => { const v = document.querySelector('#overview-table .virtual-table-viewport');"
        " return [v.scrollWidth, v.clientWidth, document.documentElement.scrollWidth]; }"
    )
    assert sideways[0] <= sideways[1] and sideways[2] <= WIDTH
    # the Samples cell (a count per track) stays on one line
    lines = page.evaluate(
        "() => { const t = document.querySelector('#overview-table');"
        " const i = [...t.querySelectorAll('thead th')].findIndex(h => h.innerText.trim() =="
        " 'Samples'); const cell = t.querySelectorAll('tbody tr')[0].children[i];"
        " const span = cell.querySelector('span') || cell;"
        " return span.getBoundingClientRect().height / parseFloat(getComputedStyle(span).lineHeight); }"
    )
    assert lines <= 1.5


@pytest.mark.parametrize("name", list(BANNERS))
def test_every_track_page_of_the_demo_names_its_stand_ins(page: sync_api.Page, name: str) -> None:
    selector, names = BANNERS[name]
    tab(page, name)
    banner = page.locator(selector)
    banner.wait_for()
    text = banner.inner_text()
    assert "measure nothing" in text and all(n in text for n in names), text
    if name == "ProBench":
        wait_for_error_bars(page)
        page.wait_for_timeout(400)
        page.screenshot(path=str(ARTIFACTS / "demo_probench_1280.png"), full_page=True)


def test_ratings_are_points_with_whiskers(page: sync_api.Page) -> None:
    tab(page, "VisionArena-Bench")
    wait_for_error_bars(page)
    drawn = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')]"
        ".filter(p => p.offsetParent !== null)"
        ".map(p => [p.querySelectorAll('.scatterlayer .point').length,"
        " p.querySelectorAll('.barlayer .point').length])"
    )
    assert any(points > 0 for points, _ in drawn) and all(bars == 0 for _, bars in drawn)
