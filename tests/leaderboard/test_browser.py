"""The Space in a real browser: Debian's Chromium driven by Playwright, app served on 127.0.0.1.

The app runs as `python leaderboard_space/app.py` would, over real MEGA-Bench, SimpleVQA and
colour-track runs, the VisionArena board of the golden human battles (as `vlmscope ratings
battles --result-dir` writes it) and a hostile result, under an audit hook that logs any outside
connection. Every page must show the expected models and numbers, sorting must reorder the
overview, the rating page must follow its category and style-control pickers, the sample browser
must show responses as text (a grader's retry labelled as one), and the script payloads in the
hostile result must run nothing. At 1280x800 every overview column must be in view, titles whole,
and a `--limit` run marked.
Over a results folder with damaged result folders (`broken`), the app must start, show the good
runs and list each skipped folder, a folder named with HTML as that text.
Screenshots go to `test-artifacts/leaderboard/`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import urlopen

import pytest

from tests.leaderboard.broken import BAD, GOOD, HOSTILE_FOLDER, PAGES_DAMAGED
from tests.leaderboard.fabricate import (
    ARENA_TRACK,
    HOSTILE_MODEL,
    PAYLOAD,
    UNREADABLE_GRADE,
    overview_order,
    simplevqa_gold,
)
from vlmscope.leaderboard.headline_intervals import OLD_SUMMARY
from vlmscope.leaderboard.rating_view import board_view, rating_frame
from vlmscope.leaderboard.result_store import ResultStore

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "Debian's Chromium is not installed (apt-get install chromium)", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "leaderboard"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOP = "glm-4v-72b-07"  # first on the overall board of the golden battles
MODELS = tuple(overview_order())
SIMPLEVQA_QUESTION = next(iter(simplevqa_gold()))  # data id 0: the first sample browsed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(results: Path, workdir: Path) -> Iterator[tuple[str, Path]]:
    """The Space over `results` on a free local port: its URL and its outside-connection log."""
    with serve_space(workdir, {"VLMSCOPE_RESULTS_DIR": str(results)}) as (url, _, netlog):
        yield url, netlog


@contextmanager
def serve_space(
    workdir: Path, settings: dict[str, str], *, start_timeout: float = 90
) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """`leaderboard_space/app.py` with the environment `settings`, under the network guard, on a
    free local port: its URL, its process (a test may kill it) and its outside-connection log."""
    port = _free_port()
    netlog = workdir / "outside.log"
    env = {
        **os.environ,
        **settings,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        # the test suite's plugin tracks are known to the app as to the tests (tests/plugins)
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests" / "plugins")]),
    }
    if "VLMSCOPE_RESULTS_REPO" not in settings:
        env.pop("VLMSCOPE_RESULTS_REPO", None)
    log = (workdir / "app.log").open("w")
    guard = Path(__file__).with_name("netguard.py")
    app = REPO / "leaderboard_space" / "app.py"
    proc = subprocess.Popen(
        [sys.executable, str(guard), str(netlog), str(app)],
        env=env,
        stdout=log,
        stderr=log,
        cwd=REPO,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + start_timeout
    while True:
        try:
            with urlopen(url, timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the Space did not start: {Path(log.name).read_text()[-3000:]}")
            time.sleep(0.3)
    try:
        yield url, proc, netlog
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def server(
    results_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    with serve(results_dir, tmp_path_factory.mktemp("app")) as served:
        yield served


class Watched:
    """The page plus everything it did that it must not do."""

    def __init__(self, page: sync_api.Page) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.outside: list[str] = []
        page.on("dialog", self._dialog)
        page.on("request", self._request)

    def _dialog(self, dialog: sync_api.Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request: sync_api.Request) -> None:
        if (urlparse(request.url).hostname or "") not in ("127.0.0.1", "localhost") and not (
            request.url.startswith(("data:", "blob:"))
        ):
            self.outside.append(request.url)


@pytest.fixture(scope="module")
def chromium() -> Iterator[sync_api.Browser]:
    """One browser for the module (Playwright's sync API runs one instance per thread)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        yield browser
        browser.close()


@contextmanager
def browse(
    browser: sync_api.Browser, url: str, width: int = 1400, height: int = 1000
) -> Iterator[Watched]:
    """A new page on the Space's overview, watched for dialogs and outside requests."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(15_000)
    seen = Watched(page)
    page.goto(url, wait_until="networkidle")
    page.wait_for_selector("#overview-table")
    try:
        yield seen
    finally:
        page.close()


@pytest.fixture(scope="module")
def watched(chromium: sync_api.Browser, server: tuple[str, Path]) -> Iterator[Watched]:
    with browse(chromium, server[0]) as seen:
        yield seen


@contextmanager
def space_page(results: Path, workdir: Path, **viewport: int) -> Iterator[sync_api.Page]:
    """A page on the overview of a Space of its own over `results` (served from `workdir`), in a
    browser of its own: for a module whose results differ from the shared `results_dir`."""
    with serve(results, workdir) as (url, _), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url, **viewport) as seen:
            yield seen.page
        browser.close()


def tab(page: sync_api.Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


def shot(page: sync_api.Page, name: str) -> None:
    page.wait_for_timeout(400)  # let plots finish drawing
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def lines(page: sync_api.Page, selector: str) -> list[str]:
    return [
        line.strip() for line in page.locator(selector).inner_text().splitlines() if line.strip()
    ]


def wait_for_text(page: sync_api.Page, selector: str, text: str, absent: str = "\0") -> None:
    """Wait until the element shows `text` (and not `absent`): the server has answered."""
    page.wait_for_function(
        "([sel, text, absent]) => { const t = document.querySelector(sel).innerText;"
        " return t.includes(text) && !t.includes(absent); }",
        arg=[selector, text, absent],
    )


def wait_for_value(page: sync_api.Page, selector: str, text: str) -> None:
    """Wait until the text box shows `text` in its value (model output is a value, not markup)."""
    page.wait_for_function(
        "([sel, text]) => { const box = document.querySelector(`${sel} textarea, ${sel} input`);"
        " return box !== null && box.value.includes(text); }",
        arg=[selector, text],
    )


def wait_for_error_bars(page: sync_api.Page) -> None:
    """Wait until a chart on the page draws an interval that is more than a point."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .errorbar path')]"
        ".some(p => p.getBoundingClientRect().height > 1)"
    )


def model_order(page: sync_api.Page) -> list[str]:
    return [line for line in lines(page, "#overview-table") if line in MODELS]


def choose(page: sync_api.Page, dropdown: str, option: str) -> None:
    page.locator(f"{dropdown} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def test_overview_shows_every_model_and_headline(watched: Watched, store: ResultStore) -> None:
    page = watched.page
    text = lines(page, "#overview-table")
    for header in (
        "MEGA-Bench overall",
        "SimpleVQA F",
        "Colours accuracy",
        "VisionArena rating",
        "Config hash",
        "Failed",
    ):
        assert header in text
    top = rating_frame(store.boards[ARENA_TRACK].board).iloc[0]
    for number in ("87.5", "100", "40", "50", f"{top['Rating']:g}", top["95% CI"]):
        assert number in text
    # best first by MEGA-Bench, then SimpleVQA, then Colours, then the rating
    assert model_order(page) == list(MODELS)
    shot(page, "overview")


# Each overview title: its box, and whether its text is cut (an ellipsis or a clipped line).
TITLES_JS = """() => {
  const table = document.querySelector('#overview-table');
  const frame = table.querySelector('.virtual-table-viewport').getBoundingClientRect();
  return [...table.querySelectorAll('thead th.header-cell')].map(th => {
    const text = th.querySelector('.header-content span') || th;
    const box = th.getBoundingClientRect();
    return {title: text.innerText.replace(/\\s+/g, ' ').trim(), left: box.left, right: box.right,
            frame_right: frame.right, cut: text.scrollWidth > text.clientWidth};
  });
}"""


def test_overview_fits_a_1280_px_window(
    chromium: sync_api.Browser, server: tuple[str, Path]
) -> None:
    """At 1280x800 the page scrolls sideways nowhere: every column title is whole and inside
    the window and the table's frame, the last one too, and the `--limit` run is marked."""
    with browse(chromium, server[0], width=1280, height=800) as seen:
        page = seen.page
        page.wait_for_timeout(400)
        page.screenshot(path=str(ARTIFACTS / "overview_1280.png"))
        titles = page.evaluate(TITLES_JS)
        assert [t["title"] for t in titles][-3:] == ["Failed", "Unparseable", "Other flags"]
        for title in titles:
            assert title["left"] >= 0 and title["right"] <= 1280, title
            assert title["right"] <= title["frame_right"] + 0.5, title
            assert not title["cut"], title
        sideways = page.evaluate(
            "() => { const v = document.querySelector('#overview-table .virtual-table-viewport');"
            " return [v.scrollWidth, v.clientWidth, document.documentElement.scrollWidth]; }"
        )
        assert sideways[0] <= sideways[1] and sideways[2] <= 1280
        shown = lines(page, "#overview-table")
        assert "3 (limit 3)" in shown and "14" in shown and "7 (limit 1)" not in shown


def test_sorting_changes_the_order(watched: Watched) -> None:
    page = watched.page
    header = page.locator("#overview-table thead th", has_text="SimpleVQA F").first
    header.hover()
    header.get_by_role("button", name="Open cell menu").click()
    page.get_by_role("menuitem", name="Sort ascending").first.click()
    page.wait_for_function(
        "() => { const t = document.querySelector('#overview-table').innerText;"
        " return t.indexOf('svqa-weak') < t.indexOf('svqa-strong'); }"
    )
    order = model_order(page)
    assert order.index("svqa-weak") < order.index("svqa-strong")
    assert order != list(MODELS)
    shot(page, "overview_sorted")


def test_megabench_page_compares_models_by_keyword(watched: Watched, store: ResultStore) -> None:
    page = watched.page
    tab(page, "MEGA-Bench")
    page.wait_for_selector("#megabench-keywords")
    headline = lines(page, "#megabench-headline")
    assert "87.5" in headline
    # the single-image overall with the subset's own interval, as the full benchmark's is shown
    intervals = store.summary("megabench", "oracle").scores["intervals"]
    lower, upper = intervals["single_image"]["overall"]
    assert "Single-image overall 95% CI" in headline
    assert f"{100 * lower:.2f} - {100 * upper:.2f}" in headline
    no_ci = page.locator("#megabench-headline-no-ci").inner_text()
    assert "Single-image overall: " not in no_ci  # the hostile result has no such number
    assert f"Overall: {HOSTILE_MODEL} ({OLD_SUMMARY})" in no_ci
    assert "Data: sample" in lines(page, "#megabench-data")  # the run read the shipped sample
    keywords = lines(page, "#megabench-keywords")
    assert "Text Recognition (OCR)" in keywords and "75" in keywords  # object recognition: 3 of 4
    page.wait_for_selector(".js-plotly-plot .polarlayer .trace")  # the radar drew its polygons
    page.locator("#megabench-dimension").get_by_text("Application").click()
    wait_for_text(page, "#megabench-keywords", "Perception")
    shot(page, "megabench")


def test_simplevqa_page_breaks_down_with_intervals(watched: Watched) -> None:
    page = watched.page
    tab(page, "SimpleVQA")
    page.wait_for_selector("#simplevqa-table")
    overall = lines(page, "#simplevqa-table")
    assert {"svqa-strong", "svqa-weak", "33.33", "40", "F 95% CI"} <= set(overall)
    page.locator("#simplevqa-breakdown").get_by_text("By language").click()
    wait_for_text(page, "#simplevqa-table", "CN")
    wait_for_error_bars(page)
    shot(page, "simplevqa")


def rating_cell(page: sync_api.Page, table: str, model: str) -> str:
    shown = lines(page, table)
    return shown[shown.index(model) + 1] if model in shown else ""


def wait_for_rating(page: sync_api.Page, table: str, model: str, value: str) -> None:
    """Wait until the table shows `value` as the model's rating: the server has answered."""
    deadline = time.monotonic() + 15
    while rating_cell(page, table, model) != value:
        assert time.monotonic() < deadline, f"{model} never showed {value} in {table}"
        page.wait_for_timeout(100)


def test_rating_page_follows_category_and_style_control(
    watched: Watched, store: ResultStore
) -> None:
    """The VisionArena board of `ratings battles --result-dir`: pick a category, toggle style
    control; each time the table shows that view's ratings, which differ from the last."""
    page = watched.page
    board = store.boards[ARENA_TRACK].board

    def expected(category: str, style_control: bool) -> str:
        frame = rating_frame(board_view(board, category, style_control=style_control))
        return f"{frame.set_index('Model').loc[TOP, 'Rating']:g}"

    tab(page, "VisionArena")
    table = "#visionarena-table"
    page.wait_for_selector(table)
    wait_for_rating(page, table, TOP, expected("overall", False))
    note = page.locator("#visionarena-note").inner_text()
    assert "from 4772 battles" in note and "battles_5k.jsonl" in note
    assert not page.locator("#visionarena-style input").is_checked()
    wait_for_error_bars(page)
    shot(page, "visionarena_overall")
    overall = lines(page, table)

    choose(page, "#visionarena-category", "ocr")
    wait_for_rating(page, table, TOP, expected("ocr", False))
    ocr = lines(page, table)
    assert ocr != overall
    shot(page, "visionarena_ocr")

    page.locator("#visionarena-style input").check()
    wait_for_rating(page, table, TOP, expected("ocr", True))
    assert lines(page, table) != ocr
    assert {"tokens", "headers", "lists", "bold"} <= set(
        lines(page, "#visionarena-style-coefficients")
    )
    shot(page, "visionarena_ocr_style_control")

    choose(page, "#visionarena-category", "overall")
    wait_for_rating(page, table, TOP, expected("overall", True))
    page.locator("#visionarena-style input").uncheck()
    wait_for_rating(page, table, TOP, expected("overall", False))


def test_sample_browser_shows_response_prompt_and_scores(watched: Watched) -> None:
    page = watched.page
    tab(page, "Samples")
    choose(page, "#samples-model", "oracle")
    choose(page, "#samples-task", "sample_single_answer")
    wait_for_value(page, "#samples-reference", '"Answer": "B"')
    assert page.locator("#samples-response textarea").input_value().strip()
    assert "<image 1" in page.locator("#samples-prompt textarea").input_value()
    assert page.locator("img").count() >= 1  # the rebuilt prompt's image
    assert "query_score" in lines(page, "#samples-scores")
    shot(page, "samples_oracle")
    choose(page, "#samples-track", "simplevqa")
    wait_for_value(page, "#samples-response", "圆形")
    assert SIMPLEVQA_QUESTION in page.locator("#samples-prompt textarea").input_value()
    shot(page, "samples_simplevqa")
    choose(page, "#samples-model", "svqa-weak")
    choose(page, "#samples-sample", "1")  # "I don't know", graded after one unreadable reply
    wait_for_value(page, "#samples-judge", "grader reply 2 (retry)")
    assert page.locator("#samples-judge textarea").input_value() == (
        f"[grader reply 1 (unreadable: asked again)]\n{UNREADABLE_GRADE}\n\n"
        "[grader reply 2 (retry)]\nC"
    )
    shot(page, "samples_simplevqa_retry")
    choose(page, "#samples-track", "megabench")


def test_hostile_output_is_shown_as_text_and_runs_nothing(
    watched: Watched, server: tuple[str, Path]
) -> None:
    page = watched.page
    choose(page, "#samples-model", HOSTILE_MODEL)
    wait_for_value(page, "#samples-response", "<script>")
    assert page.locator("#samples-response textarea").input_value() == PAYLOAD
    assert page.locator("#samples-parsed textarea").input_value() == PAYLOAD
    assert PAYLOAD in page.locator("#samples-judge textarea").input_value()
    choose(page, "#samples-sample", "hostile/1  (score 0.00)  [request_failed]")
    wait_for_value(page, "#samples-status", "request_failed")
    shot(page, "samples_hostile")
    tab(page, "Overview")
    tab(page, "MEGA-Bench")
    page.wait_for_timeout(500)
    assert watched.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src='x']").count() == 0
    assert watched.outside == []
    netlog = server[1]
    assert not netlog.exists() or netlog.read_text() == ""


def test_skipped_folders_are_listed_as_text(
    chromium: sync_api.Browser, degraded_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A corrupt folder does not take the Space down: the good runs show, each skipped folder
    is listed by its path, a folder named with HTML as those characters, and a run whose details
    fail when opened says so in the sample browser."""
    workdir = tmp_path_factory.mktemp("degraded_app")
    with serve(degraded_dir, workdir) as (url, netlog), browse(chromium, url) as watched:
        page = watched.page
        overview = lines(page, "#overview-table")
        assert set(GOOD) <= set(overview) and "mystery hit_rate" in overview
        assert "Skipped result folders" in page.locator("#skipped-note").inner_text()
        assert f"{len(BAD)} result folders skipped" in page.inner_text("body")
        skipped = lines(page, "#skipped-folders")
        assert set(BAD) <= set(skipped)
        assert "written by a newer vlmscope (format 4); upgrade to read it" in skipped
        # the folder named with HTML shows as its characters (an element would show none)
        assert any(HOSTILE_FOLDER in line for line in skipped)
        assert page.locator("#skipped-folders img").count() == 0
        page.locator("#skipped-folders").scroll_into_view_if_needed()
        shot(page, "overview_skipped_folders")

        tab(page, "Samples")  # a run whose details fail when opened: the reason, no exception
        choose(page, "#samples-model", PAGES_DAMAGED)
        wait_for_value(page, "#samples-status", f"the samples of {PAGES_DAMAGED} on megabench")
        status = page.locator("#samples-status textarea").input_value()
        assert "details/test-00000-of-00001.parquet does not read as parquet" in status
        shot(page, "samples_unreadable_details")
        choose(page, "#samples-model", "good-model")
        wait_for_value(page, "#samples-response", "blue")

        assert page.evaluate("window.__pwned") is None
        assert page.locator("img[src='x']").count() == 0
        assert watched.dialogs == [] and watched.outside == []
    assert not netlog.exists() or netlog.read_text() == ""
