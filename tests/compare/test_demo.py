"""The README's demo, compared: `vlmscope compare results/demo oracle tiny-llava` prints a
comparison of the demo's two models on every track, and the Space's Compare page renders it in
a real browser: the paired numbers, the filters, every model's answer side by side, a link that
opens one sample, and the overview's intervals and rank bands. Screenshots go to
`test-artifacts/compare/`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard.test_browser import (
    CHROMIUM,
    LAUNCH_ARGS,
    Watched,
    choose,
    lines,
    serve,
    sync_api,
    tab,
    wait_for_text,
    wait_for_value,
)
from vlmscope.cli import main

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "compare"
TITLES = ("MEGA-Bench", "ProBench", "SimpleVQA", "VisionArena-Bench")


@pytest.mark.timeout(900)
def test_the_demo_compares_its_two_models_on_every_track(
    demo_results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(demo_results), "oracle", "tiny-llava", "--rounds", "300"]) == 0
    shown = capsys.readouterr().out
    for title in TITLES:
        assert f"== {title} (" in shown
    assert "not compared" not in shown
    assert "+87.50 [" in shown  # MEGA-Bench overall: the oracle's Core 100 against 0
    assert "P(oracle beats tiny-llava)" in shown and "mcnemar: 6 correct for oracle only" in shown


@pytest.fixture(scope="module")
def watched(
    demo_results: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Watched, str, sync_api.Browser]]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    workdir = tmp_path_factory.mktemp("compare_app")
    with serve(demo_results, workdir) as (url, _), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)  # a comparison refits a board: seconds under load
        seen = Watched(page)
        page.goto(url, wait_until="networkidle")
        page.wait_for_selector("#overview-table")
        yield seen, url, browser
        browser.close()


def shot(page: sync_api.Page, name: str) -> None:
    page.wait_for_timeout(400)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_the_overview_shows_intervals_and_rank_bands(
    watched: tuple[Watched, str, sync_api.Browser],
) -> None:
    page = watched[0].page
    tab(page, "Overview")
    shown = lines(page, "#overview-table")
    assert "87.5" in shown and "rank 1" in shown and "rank 2" in shown
    assert any(line.startswith("+") and " / -" in line for line in shown)
    shot(page, "overview")


def test_the_compare_page_renders_the_demo(watched: tuple[Watched, str, sync_api.Browser]) -> None:
    seen = watched[0]
    page = seen.page
    tab(page, "Compare")
    wait_for_text(page, "#compare-numbers", "+87.50 [")
    numbers = lines(page, "#compare-numbers")
    assert {"oracle", "tiny-llava", "overall", "Core", "Open"} <= set(numbers)
    assert "Object Recognition and Classification" in numbers  # a keyword dimension
    assert "Tasks that move most" in page.locator("#compare-list-0").inner_text()
    wait_for_value(page, "#compare-reference", "Answer")
    assert page.locator("#compare-answer-0 textarea").input_value().strip()
    assert "oracle: right" in page.locator("#compare-answer-0").inner_text()
    assert "tiny-llava: wrong" in page.locator("#compare-answer-1").inner_text()
    shot(page, "compare_megabench")

    page.locator("#compare-filter").get_by_text("B right, A wrong").click()
    wait_for_text(page, "#compare-count", "0 of 16 samples shown")
    page.locator("#compare-filter").get_by_text("A right, B wrong").click()
    wait_for_text(page, "#compare-count", "14 of 16 samples shown")  # every Core query

    choose(page, "#compare-track", "simplevqa")
    wait_for_text(page, "#compare-note", "mcnemar: 6 correct for A only")
    assert page.locator("#compare-filter input[value='all samples']").is_checked()  # reset
    assert {"CO", "IN", "NA", "CGA", "F"} <= set(lines(page, "#compare-numbers"))
    choose(page, "#compare-language", "EN")
    wait_for_text(page, "#compare-count", "3 of 6 samples shown")
    shot(page, "compare_simplevqa")

    choose(page, "#compare-track", "visionarena_bench")
    wait_for_text(page, "#compare-numbers", "P(oracle beats tiny-llava)")
    assert "beats" in page.locator("#compare-numbers").inner_text()
    wait_for_value(page, "#compare-scored-0", "vs sample-anchor:")
    shot(page, "compare_visionarena_bench")
    assert seen.dialogs == [] and seen.outside == []
    assert page.locator(".toast-body").count() == 0  # no event failed


def test_a_link_opens_its_sample(watched: tuple[Watched, str, sync_api.Browser]) -> None:
    seen, url, browser = watched
    page = seen.page
    tab(page, "Compare")
    choose(page, "#compare-track", "megabench")
    wait_for_text(page, "#compare-numbers", "+87.50 [")
    choose(page, "#compare-sample", "sample_json_fields/1  [oracle: right, tiny-llava: wrong]")
    wait_for_value(page, "#compare-link", "sample=sample_json_fields%2F1")
    link = page.locator("#compare-link textarea, #compare-link input").first.input_value()
    assert link.startswith(url) and "compare=megabench" in link
    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    other.set_default_timeout(60_000)
    other.goto(link, wait_until="networkidle")
    other.wait_for_selector("#compare-numbers")
    assert (
        other.get_by_role("tab", name="Compare", exact=True).get_attribute("aria-selected")
        == "true"
    )
    wait_for_value(other, "#compare-link", "sample=sample_json_fields%2F1")
    assert "sample_json_fields/1" in other.locator("#compare-sample input").input_value()
    shot(other, "compare_link")
    other.close()
