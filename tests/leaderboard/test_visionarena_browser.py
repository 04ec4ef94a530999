"""The VisionArena pages in a real browser (Chromium driven by Playwright).

The Space serves the results of `test_visionarena_view.write_visionarena_results` (the human-vote
board of the shipped battles, written by `vlmscope visionarena leaderboard`, and a
VisionArena-Bench run), with `VLMSCOPE_VISIONARENA_BATTLE_DATA` naming a copy of the Battle sample
whose conversations of one battle carry script payloads. The human-vote page must follow its
board picker and style toggle (the rank changes appear, a board without a twin says why), show
tie shares, style coefficients and the agreement with the bench; the bench page its table
against the anchor; the battle browser both conversations side by side, the payloads as text
that runs nothing. Screenshots go to the test's tmp folder, and to `$VLMSCOPE_SCREENSHOTS` when
it is set (as the ProBench browser test's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard.fabricate import PAYLOAD
from tests.leaderboard.test_browser import (
    CHROMIUM,
    LAUNCH_ARGS,
    browse,
    choose,
    lines,
    serve,
    sync_api,
    tab,
    wait_for_error_bars,
    wait_for_text,
    wait_for_value,
)
from tests.leaderboard.test_probench_browser import shot
from tests.leaderboard.test_visionarena_view import (
    ANCHOR,
    ARENA,
    BENCH,
    HOSTILE_BATTLE,
    write_battle_data,
    write_visionarena_results,
)
from vlmscope.leaderboard import visionarena_battles as vbt
from vlmscope.leaderboard import visionarena_view as va
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.rating_view import TOO_FEW, board_view
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.board import RatingBoard

TABLE = "#visionarena-table"


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("visionarena_screenshots")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("visionarena_results") / "results"
    write_visionarena_results(out)
    return out


@pytest.fixture(scope="module")
def board(results: Path) -> RatingBoard:
    return ResultStore(ResultsLocation.local(results)).boards[ARENA].board


@pytest.fixture(scope="module")
def page(results: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    data = write_battle_data(tmp_path_factory.mktemp("visionarena_data") / "battle")
    workdir = tmp_path_factory.mktemp("visionarena_app")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(vbt.BATTLE_DATA_ENV, str(data))  # the app's environment is a copy of ours
        with serve(results, workdir) as (url, netlog), sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            with browse(browser, url) as watched:
                yield watched.page
                assert watched.page.evaluate("window.__pwned") is None
                assert watched.page.locator("img[src='x']").count() == 0
                assert watched.dialogs == [] and watched.outside == []
            browser.close()
    assert not netlog.exists() or netlog.read_text() == ""


def _rows(page: sync_api.Page, selector: str) -> dict[str, list[str]]:
    """Each body row of a table by its model (the second cell): its cells as shown."""
    cells = page.eval_on_selector_all(
        f"{selector} .virtual-row",
        "rows => rows.map(r => [...r.querySelectorAll('.body-cell')].map(c => c.innerText.trim()))",
    )
    return {row[1]: row for row in cells if len(row) > 1}


def _expected_score(board: RatingBoard, category: str, style: bool, model: str) -> str:
    view = board_view(board, category, style_control=style)
    assert view is not None
    return f"{round(view.models[model].rating, 1):g}"


def wait_for_score(page: sync_api.Page, model: str, score: str) -> None:
    page.wait_for_function(
        "([sel, model, score]) => { const t = document.querySelector(sel).innerText"
        ".split('\\n').map(s => s.trim()).filter(s => s);"
        " const i = t.indexOf(model); return i >= 0 && t[i + 1] === score; }",
        arg=[TABLE, model, score],
    )


def test_the_board_follows_category_and_style_control(
    page: sync_api.Page, board: RatingBoard, shots: Path
) -> None:
    page.get_by_role(
        "tab", name="VisionArena", exact=True
    ).click()  # a prefix of "VisionArena-Bench"
    page.wait_for_selector(TABLE)
    top = va.arena_frame(board, "overall", False)["Model"][0]
    wait_for_score(page, top, _expected_score(board, "overall", False, top))
    assert "Rank change" not in lines(page, TABLE)
    assert not any(va.STAR in cells for cells in _rows(page, TABLE).values())  # 40 votes
    assert "fewer than 20 votes" in page.locator("#visionarena-legend").inner_text()
    wait_for_error_bars(page)
    shot(page, shots, "visionarena_overall")

    choose(page, "#visionarena-category", "Captioning")  # 10 battles: too few to rate, all thin
    wait_for_text(page, TABLE, TOO_FEW)
    captioning = _rows(page, TABLE)
    assert set(captioning) == set(board.categories["captioning"].models)
    assert all(va.STAR in cells and TOO_FEW in cells for cells in captioning.values())

    choose(page, "#visionarena-category", "Exclude preset images")
    wait_for_score(page, top, _expected_score(board, "is_preset", False, top))
    plain = lines(page, TABLE)
    page.locator("#visionarena-style input").check()
    wait_for_text(page, TABLE, "Rank change")
    wait_for_score(page, top, _expected_score(board, "is_preset", True, top))
    styled = _rows(page, TABLE)
    assert lines(page, TABLE) != plain
    frame = va.arena_frame(board, "is_preset", True).set_index("Model")
    for model, cells in styled.items():
        assert cells[-1] == f"{frame.loc[model, va.RANK_CHANGE]:g}"  # the last column
    assert set(styled) == set(frame.index) and any(c[-1] != "0" for c in styled.values())
    assert "positive means the model climbs" in page.locator("#visionarena-legend").inner_text()
    shot(page, shots, "visionarena_style_control")

    choose(page, "#visionarena-category", "OCR")  # no style-controlled twin: the reason, no table
    wait_for_text(page, "#visionarena-missing", "no style-controlled board")
    assert "is the same for every battle" in page.locator("#visionarena-missing").inner_text()
    assert page.locator(TABLE).is_hidden()
    shot(page, shots, "visionarena_ocr_no_twin")
    page.locator("#visionarena-style input").uncheck()
    page.wait_for_selector(TABLE, state="visible")
    wait_for_score(page, top, _expected_score(board, "ocr", False, top))
    assert page.locator("#visionarena-missing").inner_text().strip() == ""
    choose(page, "#visionarena-category", "All battles")


def test_ties_style_coefficients_and_agreement(page: sync_api.Page, shots: Path) -> None:
    ties = lines(page, "#visionarena-ties")
    assert {"Tie (%)", "Tie (bothbad) (%)", "All battles", "Language: Chinese", "15"} <= set(ties)
    coefficients = lines(page, "#visionarena-style-coefficients")
    assert {"tokens", "headers", "lists", "bold", "Exclude preset images"} <= set(coefficients)
    assert any("no style-controlled board" in line for line in coefficients)
    agreement = lines(page, "#visionarena-agreement")
    assert {"spearman", "kendall_tau", "confidence_agreement", "plain", "style control"} <= set(
        agreement
    )
    page.locator("#visionarena-ties").scroll_into_view_if_needed()
    shot(page, shots, "visionarena_ties_and_style")


def test_a_battle_side_by_side_as_text(page: sync_api.Page, shots: Path) -> None:
    choose(page, "#visionarena-category", "Multi-turn")
    wait_for_value(page, "#visionarena-battle-count", "16 battles on the board Multi-turn")
    choose(
        page, "#visionarena-battle", f"{HOSTILE_BATTLE} · lumen-vl-70b vs tessera-vl-8b · model_b"
    )
    wait_for_value(page, "#visionarena-battle-summary", f"battle: {HOSTILE_BATTLE}")
    summary = page.locator("#visionarena-battle-summary textarea").input_value()
    assert "vote: model_b (Model B is better)" in summary
    assert "category flags: diagram, multi-turn" in summary and "language: English" in summary
    side_a = page.locator("#visionarena-battle-a textarea").input_value()
    side_b = page.locator("#visionarena-battle-b textarea").input_value()
    for turn in (1, 2):
        assert f"[turn {turn} of 2: user]" in side_a and f"[turn {turn} of 2: user]" in side_b
        assert f"[turn {turn} of 2: model A (lumen-vl-70b)]" in side_a
        assert f"[turn {turn} of 2: model B (tessera-vl-8b)]" in side_b
    assert side_a.count(PAYLOAD) == 2 and side_b.count(PAYLOAD) == 2  # the characters, as text
    box_a = page.locator("#visionarena-battle-a").bounding_box()
    box_b = page.locator("#visionarena-battle-b").bounding_box()
    assert box_a and box_b and box_a["x"] + box_a["width"] <= box_b["x"] + 1  # side by side
    assert abs(box_a["y"] - box_b["y"]) < 2
    page.wait_for_selector("#visionarena-battle-images img")  # the battle's image, from the data
    assert page.evaluate("window.__pwned") is None
    page.locator("#visionarena-battle-a").scroll_into_view_if_needed()
    shot(page, shots, "visionarena_battle")


def test_the_bench_page_shows_its_table(page: sync_api.Page, results: Path, shots: Path) -> None:
    bench = ResultStore(ResultsLocation.local(results)).boards[BENCH].board
    tab(page, "VisionArena-Bench")
    page.wait_for_selector("#visionarena_bench-table")
    shown = lines(page, "#visionarena_bench-table")
    assert {"Score", "95% CI", "Win rate (%)", "Win rate 95% CI", "anchor", ANCHOR} <= set(shown)
    assert ("Avg tokens" in shown) == ("avg_tokens" in bench.settings.extra)
    assert "Avg tokens" in shown  # the run writes each model's average answer tokens
    assert "1000" in shown  # the anchor's score, plain arena-hard v0.1
    about = page.locator(f"#{BENCH}-about").inner_text()
    assert "arena-hard-v0.1" in about and ANCHOR in about
    assert "spearman" in lines(page, f"#{BENCH}-agreement")
    page.locator(f"#{BENCH}-style input").check()
    wait_for_text(page, f"#{BENCH}-table", "1114")
    wait_for_error_bars(page)
    shot(page, shots, "visionarena_bench")
