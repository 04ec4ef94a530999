"""On every track page an interval reads as its number's, as in the overview: smaller and grey,
in Chromium at a laptop's 1280 px.

Each table below keeps its intervals in a column of their own beside the number; the interval
cell's computed size and the height its characters are drawn at must be below the number
cell's (the size by no more than a fifth: on a 14 px table as on a 10 px one), in another
(muted) colour, and it must still be the interval's text, with nothing drawn from it; after a
control redraws a table (SimpleVQA's breakdown, VisionArena's category) the style must come
back with the new rows. Every wait is on what the cells show, never on time. A model named
with HTML shows as those characters in its keyword column's title and nothing of it runs.
Screenshots: `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard import fabricate
from tests.leaderboard.fabricate import ARENA_TRACK
from tests.leaderboard.test_browser import ARTIFACTS, choose, space_page, sync_api, tab
from vlmscope.leaderboard.rating_view import board_view, rating_frame
from vlmscope.leaderboard.result_store import ResultStore

# The first row's cells of a table, by column title: computed size and colour, the drawn height
# of its text, the text and how many elements it holds (none: it is text); `missing` names a
# title the table lacks, `drawn` is false until the table has a row laid out on the page.
CELLS_JS = """([sel, wanted]) => {
  const table = document.querySelector(sel);
  const row = table && table.querySelector('.virtual-body .virtual-row');
  if (!row || row.getBoundingClientRect().height === 0) return {drawn: false};
  const titles = [...table.querySelectorAll('thead th.header-cell')]
    .map(th => th.innerText.replace(/\\s+/g, ' ').trim());
  const cell = (title) => {
    const col = titles.indexOf(title);
    const span = col < 0 ? null : row.querySelector(`.body-cell[data-col='${col}'] span`);
    if (!span) return {missing: title, titles};
    const range = document.createRange();
    range.selectNodeContents(span);
    const style = getComputedStyle(span);
    return {text: span.innerText, size: parseFloat(style.fontSize), color: style.color,
            height: range.getClientRects()[0]?.height ?? 0,
            elements: span.querySelectorAll('*').length};
  };
  return {drawn: true, ...Object.fromEntries(wanted.map(t => [t, cell(t)]))};
}"""
# True once the first row's cells are drawn and each shows what it should (a regular expression
# per column title): the condition that proves a table was drawn, or redrawn, with its new rows.
SHOWS_JS = (
    "([sel, wanted]) => { const cells = (" + CELLS_JS + ")([sel, Object.keys(wanted)]);"
    " return cells.drawn && Object.entries(wanted).every(([t, re]) =>"
    " cells[t].height > 0 && new RegExp(re).test(cells[t].text)); }"
)
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
        # Every wait here is on what the page shows; the bound only decides how long a redraw
        # may take before the test fails. The keyword table's redraw once took over 15 s on a
        # loaded 2-core machine.
        page.set_default_timeout(60_000)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        yield page
        assert dialogs == []


def _wait_until_shows(page: sync_api.Page, selector: str, wanted: dict[str, str]) -> None:
    """Wait until the first row of the table shows `wanted` (`SHOWS_JS`); if it never does, fail
    with what its cells showed instead."""
    try:
        page.wait_for_function(SHOWS_JS, arg=[selector, wanted])
    except sync_api.TimeoutError:
        shown = page.evaluate(CELLS_JS, [selector, list(wanted)])
        raise AssertionError(f"{selector} never showed {wanted}: {shown}") from None


def _pair(
    page: sync_api.Page, selector: str, number: str, interval: str, reads: str
) -> dict[str, dict]:
    """The first row's number and interval cells, once the interval cell shows an interval."""
    _wait_until_shows(page, selector, {number: r"\d", interval: reads})
    cells = page.evaluate(CELLS_JS, [selector, [number, interval]])
    return {"number": cells[number], "interval": cells[interval]}


def _assert_reads_as_the_numbers(shown: dict[str, dict], reads: str) -> None:
    number, interval = shown["number"], shown["interval"]
    assert "missing" not in number and "missing" not in interval, shown
    assert re.match(reads, interval["text"]), shown  # still the interval, as text
    assert interval["elements"] == 0, shown  # text, no markup drawn
    # smaller than its number, but not so much smaller that it is hard to read beside it
    assert 0.8 * number["size"] <= interval["size"] < number["size"], shown
    assert 0 < interval["height"] < number["height"], shown
    assert interval["color"] != number["color"], shown  # muted


def test_a_redrawn_table_keeps_its_intervals_style(page: sync_api.Page, store: ResultStore) -> None:
    tab(page, "SimpleVQA")
    _wait_until_shows(page, "#simplevqa-table", {"Group": "^all$"})
    page.locator("#simplevqa-breakdown").get_by_label("By language").check()
    _wait_until_shows(page, "#simplevqa-table", {"Group": "^(?!all$)\\S+$"})
    _assert_reads_as_the_numbers(
        _pair(page, "#simplevqa-table", "F", "F 95% CI", r"^\d+(\.\d+)? - \d+"),
        r"^\d+(\.\d+)? - \d+",
    )
    tab(page, "VisionArena")
    ocr = rating_frame(board_view(store.boards[ARENA_TRACK].board, "ocr")).iloc[0]
    choose(page, "#visionarena-category", "ocr")
    top = {"Model": f"^{re.escape(ocr['Model'])}$", "Rating": f"^{ocr['Rating']:g}$"}
    _wait_until_shows(page, "#visionarena-table", top)
    _assert_reads_as_the_numbers(
        _pair(page, "#visionarena-table", "Rating", "95% CI", r"^\+\d+(\.\d+)? / -"),
        r"^\+\d+(\.\d+)? / -",
    )


@pytest.mark.parametrize(("page_name", "selector", "number", "interval", "reads"), TABLES)
def test_a_track_pages_interval_is_smaller_and_grey_beside_its_number(
    page: sync_api.Page, page_name: str, selector: str, number: str, interval: str, reads: str
) -> None:
    tab(page, page_name)
    _assert_reads_as_the_numbers(_pair(page, selector, number, interval, reads), reads)
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
