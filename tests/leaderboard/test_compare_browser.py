"""The Compare page over hostile results, in a real browser: two models whose names, task,
answers, references and errors carry script payloads, compared side by side. Every payload
must show as text and run nothing, and nothing may be fetched from outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.leaderboard.fabricate import HOSTILE_MODEL, PAYLOAD, write_hostile
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    CHROMIUM,
    LAUNCH_ARGS,
    browse,
    serve,
    sync_api,
    tab,
    wait_for_value,
)

TWIN = "twin<img src=x onerror=window.__pwned=1>"


@pytest.fixture(scope="module")
def hostile_pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile_pair") / "results"
    write_hostile(out / "one")
    write_hostile(out / "two", model=TWIN)
    return out


def test_hostile_answers_side_by_side_run_nothing(
    hostile_pair: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    app = tmp_path_factory.mktemp("app")
    with serve(hostile_pair, app) as (url, netlog), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url) as watched:
            page = watched.page
            tab(page, "Compare")
            wait_for_value(page, "#compare-answer-0", "<script>")
            assert page.locator("#compare-answer-0 textarea").input_value() == PAYLOAD
            assert page.locator("#compare-answer-1 textarea").input_value() == PAYLOAD
            assert (
                "<script>window.__pwned"
                in page.locator("#compare-reference textarea").input_value()
            )
            assert HOSTILE_MODEL in page.locator("#compare-numbers").inner_text()
            assert TWIN in page.locator("#compare-answer-1").inner_text()
            page.locator("#compare-filter").get_by_text("both wrong").click()
            page.wait_for_timeout(1000)
            page.screenshot(path=str(ARTIFACTS / "compare_hostile.png"), full_page=True)
            assert watched.dialogs == [] and watched.outside == []
            assert page.evaluate("window.__pwned") is None
            assert page.locator("img[src='x']").count() == 0
            assert page.locator(".toast-body").count() == 0
        browser.close()
    assert not netlog.exists() or netlog.read_text() == ""
