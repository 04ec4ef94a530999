"""The interval under a number in the overview is smaller than the number, in Chromium (1280 px).

The overview folds each number's interval under it in one cell; in the table's one size the
interval read as a second value. Here the interval line's computed font size, and the height
its characters are drawn at, must be below the number's, in a cell of the first row and after
sorting by a column whose numbers sort otherwise as text (`100` before `25`), so the style
follows its row; a model named with HTML and Markdown must show as those characters, at the
number's size, with nothing run or drawn from it. Screenshot: `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.leaderboard import fabricate
from tests.leaderboard.test_browser import ARTIFACTS, space_page, sync_api

NAME = "<img src=x onerror=alert(1)>**bold**"
# A cell's span: its own and its first line's computed size and colour, and the drawn height of
# the first character of its first and second lines.
CELL_JS = """([model, column]) => {
  const table = document.querySelector('#overview-table');
  const titles = [...table.querySelectorAll('thead th.header-cell')]
    .map(th => th.innerText.replace(/\\s+/g, ' ').trim());
  const col = titles.indexOf(column);
  const row = [...table.querySelectorAll('.virtual-body .virtual-row')]
    .find(tr => tr.querySelector(".body-cell[data-col='0']").innerText.trim() === model);
  const span = row.querySelector(`.body-cell[data-col='${col}'] span`);
  const text = span.firstChild, second = text.textContent.indexOf('\\n') + 1;
  const height = (at) => {
    const range = document.createRange();
    range.setStart(text, at); range.setEnd(text, at + 1);
    return range.getBoundingClientRect().height;
  };
  const own = getComputedStyle(span), first = getComputedStyle(span, '::first-line');
  return {text: text.textContent, size: parseFloat(own.fontSize),
          first_size: parseFloat(first.fontSize), color: own.color, first_color: first.color,
          first_height: height(0), second_height: second > 0 ? height(second) : null,
          html: span.innerHTML};
}"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[sync_api.Page, list[str]]]:
    results = tmp_path_factory.mktemp("second_lines") / "results"
    fabricate.run_megabench_oracle(results / "megabench_run")
    fabricate.write_hostile(results / "named_run", model=NAME)
    workdir = tmp_path_factory.mktemp("second_lines_app")
    with space_page(results, workdir, width=1280, height=800) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        yield page, dialogs


def _cell(page: sync_api.Page, model: str, column: str) -> dict[str, object]:
    shown: dict[str, object] = page.evaluate(CELL_JS, [model, column])
    return shown


def _assert_interval_smaller(cell: dict[str, object]) -> None:
    assert "\n" in str(cell["text"]), cell
    assert cell["size"] < cell["first_size"], cell  # type: ignore[operator]
    assert cell["second_height"] < cell["first_height"], cell  # type: ignore[operator]
    assert cell["color"] != cell["first_color"], cell  # muted


def test_the_interval_line_is_smaller_than_its_number(
    page: tuple[sync_api.Page, list[str]],
) -> None:
    shown, _ = page
    shown.wait_for_timeout(400)
    overall = _cell(shown, "oracle", "MEGA-Bench overall")
    assert str(overall["text"]).startswith("87.5\n+"), overall
    _assert_interval_smaller(overall)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shown.locator("#overview-table").screenshot(path=str(ARTIFACTS / "second_lines_1280.png"))


def test_a_model_named_with_markup_stays_text_at_the_numbers_size(
    page: tuple[sync_api.Page, list[str]],
) -> None:
    shown, dialogs = page
    name = _cell(shown, NAME, "Model")
    assert name["text"] == NAME and "<img" not in str(name["html"]), name
    assert name["size"] == name["first_size"] and name["second_height"] is None, name
    number = _cell(shown, NAME, "MEGA-Bench overall")
    assert name["size"] == number["first_size"], (name, number)
    assert shown.locator("#overview-table img, #overview-table strong").count() == 0
    assert dialogs == []


def test_sorting_sorts_by_the_number_and_the_style_follows_its_row(
    page: tuple[sync_api.Page, list[str]],
) -> None:
    shown, _ = page
    header = shown.locator("#overview-table thead th", has_text="MEGA-Bench Core").first
    header.hover()
    header.get_by_role("button", name="Open cell menu").click()
    shown.get_by_role("menuitem", name="Sort ascending").first.click()
    models = ("oracle", NAME)
    shown.wait_for_function(
        "([a, b]) => { const t = document.querySelector('#overview-table').innerText;"
        " return t.indexOf(b) < t.indexOf(a); }",
        arg=list(models),
    )
    order = [m for m in _rows(shown) if m in models]
    assert order == [NAME, "oracle"]  # 25 before 100: as numbers, not as text
    _assert_interval_smaller(_cell(shown, "oracle", "MEGA-Bench Core"))
    _assert_interval_smaller(_cell(shown, NAME, "MEGA-Bench Core"))  # `(no CI)` under 25


def _rows(page: sync_api.Page) -> list[str]:
    """The models in the overview's order, as drawn."""
    names: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('#overview-table .virtual-row')]"
        ".map(tr => tr.querySelector(\".body-cell[data-col='0']\").innerText.trim())"
    )
    return names
