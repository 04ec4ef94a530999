"""The Topics page in a real browser (Chromium driven by Playwright).

The Space serves a results folder holding two topic maps (`topic_folder`): the page draws the
top clusters as bars and the prompts as a map coloured by cluster, shows a prompt when its point
is hovered (a prompt carrying a script payload as characters that run nothing), lists the
clusters, and follows the picker to the other map. Screenshots go to the test's tmp folder, and
to `$VLMSCOPE_SCREENSHOTS` when it is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard.test_browser import (
    CHROMIUM,
    LAUNCH_ARGS,
    browse,
    choose,
    serve,
    sync_api,
    tab,
    wait_for_text,
)
from tests.leaderboard.test_probench_browser import shot
from tests.leaderboard.topic_folder import SUMMARY, write_topic_folder

BARS = "#topics-bars .trace.bars .point path"
POINTS = "#topics-map .scatterlayer .trace"


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("topics_screenshots")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    results = tmp_path_factory.mktemp("topics_results") / "results"
    write_topic_folder(results / "topics" / "chat", source="planted chats")
    write_topic_folder(results / "topics" / "live", source="live arena")
    workdir = tmp_path_factory.mktemp("topics_app")
    with serve(results, workdir) as (url, netlog), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url) as watched:
            tab(watched.page, "Topics")
            watched.page.wait_for_selector(BARS)
            yield watched.page
            assert watched.page.evaluate("window.__pwned") is None
            assert watched.page.locator("img[src='x']").count() == 0
            assert watched.dialogs == [] and watched.outside == []
        browser.close()
    assert not netlog.exists() or netlog.read_text() == ""


def test_the_top_clusters_are_bars_largest_on_top(page: sync_api.Page, shots: Path) -> None:
    assert page.locator(BARS).count() == 3
    labels = page.eval_on_selector_all(
        "#topics-bars .yaxislayer-above .ytick text", "ts => ts.map(t => t.textContent)"
    )
    assert labels[-1] == SUMMARY  # the largest cluster, drawn on top, its summary as text
    table = page.locator("#topics-table").inner_text()
    assert SUMMARY in table and "Who painted this painting" in table
    shot(page, shots, "topics")


def test_the_map_colours_points_by_cluster_and_shows_a_prompt_on_hover(
    page: sync_api.Page, shots: Path
) -> None:
    traces = page.locator(POINTS)
    assert traces.count() == 4  # three clusters and the outliers
    assert [traces.nth(k).locator(".point").count() for k in range(4)] == [4, 3, 2, 1]
    colours = {
        traces.nth(k).locator(".point").first.evaluate("p => getComputedStyle(p).fill")
        for k in range(4)
    }
    assert len(colours) == 4
    traces.nth(1).locator(".point").nth(1).hover(force=True)
    hover = page.locator("#topics-map .hoverlayer .hovertext")
    hover.wait_for()
    shown = hover.evaluate(
        "h => [...h.querySelectorAll('tspan.line')].map(t => t.textContent).join(' ')"
    )
    assert "Read the sign <script>window.__pwned = 1;" in shown
    shot(page, shots, "topics-hover")


def test_the_picker_shows_the_other_map(page: sync_api.Page) -> None:
    wait_for_text(page, "#topics-note", "from planted chats")
    choose(page, "#topics-picker", "topics/live")
    wait_for_text(page, "#topics-note", "from live arena", absent="planted chats")
    assert page.locator(BARS).count() == 3
