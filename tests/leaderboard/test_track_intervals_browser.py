"""On every track page an interval reads as its number's, as in the overview: smaller and grey,
in Chromium at a laptop's 1280 px.

Each table below keeps its intervals in a column of their own beside the number; the interval
cell's computed size and the height its characters are drawn at must be below the number
cell's, in another (muted) colour, and it must still be the interval's text, with nothing drawn
from it; after a control redraws a table (SimpleVQA's breakdown, MEGA-Bench's dimension) the
style must come back with the new rows. A model named with HTML shows as those characters in
its keyword column's title and nothing of it runs. Screenshots: `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard import fabricate
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    choose,
    space_page,
    sync_api,
    tab,
    wait_for_text,
)

# The first row's number cell and interval cell of a table: computed size and colour, the drawn
# height of its text, the text and how many elements it holds (none: it is text).
PAIR_JS = """([sel, number, interval]) => {
  const table = document.querySelector(sel);
  const titles = [...table.querySelectorAll('thead th.header-cell')]
    .map(th => th.innerText.replace(/\\s+/g, ' ').trim());
  const row = table.querySelector('.virtual-body .virtual-row');
  const cell = (title) => {
    const col = titles.indexOf(title);
    if (col < 0) return {missing: title, titles};
    const span = row.querySelector(`.body-cell[data-col='${col}'] span`);
    const range = document.createRange();
    range.selectNodeContents(span);
    const style = getComputedStyle(span);
    return {text: span.innerText, size: parseFloat(style.fontSize), color: style.color,
            height: range.getClientRects()[0]?.height ?? 0,
            elements: span.querySelectorAll('*').length};
  };
  return {number: cell(number), interval: cell(interval)};
}"""
TABLES = [  # page, table, number column, its interval column, how the interval reads
    ("MEGA-Bench", "#megabench-headline", "Overall", "Overall 95% CI", r"^\d+\.\d+ - \d+\.\d+$"),
    (
        "MEGA-Bench",
        "#megabench-keywords",
        "oracle",
        "oracle 95% CI",
        r"^(\d+(\.\d+)? - |\(no CI\))",
    ),
    ("SimpleVQA", "#simplevqa-table", "F", "F 95% CI", r"^\d+(\.\d+)? - \d+"),
    ("ProBench", "#probench-official", "Single-round Score", "Single-round 95% CI", r"^\+\d+ / -"),
    ("ProBench", "#probench-joint", "Rating", "95% CI", r"^\+\d+(\.\d+)? / -"),
    ("VisionArena", "#visionarena-table", "Rating", "95% CI", r"^\+\d+(\.\d+)? / -"),
]


@pytest.fixture(scope="module")
def page(results_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    results = tmp_path_factory.mktemp("track_intervals") / "results"
    shutil.copytree(results_dir, results)
    fabricate.write_probench_results(results / "probench_run")
    workdir = tmp_path_factory.mktemp("track_intervals_app")
    with space_page(results, workdir, width=1280, height=800) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        yield page
        assert dialogs == []


def _pair(page: sync_api.Page, selector: str, number: str, interval: str) -> dict[str, dict]:
    page.wait_for_selector(f"{selector} .virtual-body .virtual-row")
    shown: dict[str, dict] = page.evaluate(PAIR_JS, [selector, number, interval])
    return shown


def _assert_reads_as_the_numbers(shown: dict[str, dict], reads: str) -> None:
    number, interval = shown["number"], shown["interval"]
    assert "missing" not in number and "missing" not in interval, shown
    assert re.match(reads, interval["text"]), shown  # still the interval, as text
    assert interval["elements"] == 0, shown  # text, no markup drawn
    assert interval["size"] < number["size"], shown
    assert 0 < interval["height"] < number["height"], shown
    assert interval["color"] != number["color"], shown  # muted


def test_a_redrawn_table_keeps_its_intervals_style(page: sync_api.Page) -> None:
    tab(page, "SimpleVQA")
    page.locator("#simplevqa-breakdown").get_by_text("By language").click()
    wait_for_text(page, "#simplevqa-table", "CN")
    _assert_reads_as_the_numbers(
        _pair(page, "#simplevqa-table", "F", "F 95% CI"), r"^\d+(\.\d+)? - \d+"
    )
    tab(page, "VisionArena")
    choose(page, "#visionarena-category", "ocr")
    page.wait_for_timeout(800)
    _assert_reads_as_the_numbers(
        _pair(page, "#visionarena-table", "Rating", "95% CI"), r"^\+\d+(\.\d+)? / -"
    )


@pytest.mark.parametrize(("page_name", "selector", "number", "interval", "reads"), TABLES)
def test_a_track_pages_interval_is_smaller_and_grey_beside_its_number(
    page: sync_api.Page, page_name: str, selector: str, number: str, interval: str, reads: str
) -> None:
    tab(page, page_name)
    page.wait_for_timeout(300)
    _assert_reads_as_the_numbers(_pair(page, selector, number, interval), reads)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(selector).screenshot(path=str(ARTIFACTS / f"interval_{selector[1:]}.png"))


def test_a_model_named_with_markup_stays_text_in_its_interval_columns_title(
    page: sync_api.Page,
) -> None:
    tab(page, "MEGA-Bench")
    choose(page, "#megabench-models", fabricate.HOSTILE_MODEL)
    title = f"{fabricate.HOSTILE_MODEL} 95% CI"
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('#megabench-keywords thead th.header-cell')]"
        ".some(th => th.innerText.replace(/\\s+/g, ' ').trim() === t)",
        arg=title,
    )
    assert page.locator("#megabench-keywords img, #megabench-keywords strong").count() == 0
    assert page.evaluate("() => window.__pwned") is None
