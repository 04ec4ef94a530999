"""The judge's swap consistency on the ProBench and VisionArena-Bench pages, and each result's
cost under the overview, from a real run's results, in a real browser.

The run: both pairwise tracks against the usage-reporting stand-in (its judge always prefers
Assistant A, so every prompt's two games disagree and the answer shown first always wins),
priced. The tables are read from the results as the Space reads them, then in Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.costs.runs import counting_stub, stub_config, vlmscope_run, write_config, write_pricing
from tests.leaderboard.test_browser import (
    CHROMIUM,
    LAUNCH_ARGS,
    browse,
    lines,
    serve,
    sync_api,
    tab,
)
from tests.leaderboard.test_probench_browser import shot
from vlmscope.leaderboard import judge_view, ledger_view
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.result_store import ResultStore

PAIRWISE = ("probench", "visionarena_bench")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("judged")
    stub, _ = counting_stub()
    with stub:
        raw = stub_config(stub, tmp / "results", write_pricing(tmp / "prices.yaml"))
        raw["tracks"] = [t for t in raw["tracks"] if t["name"] in PAIRWISE]
        assert vlmscope_run(write_config(tmp, raw)) == 0
    return tmp / "results"


def test_the_consistency_table_comes_from_the_board_and_the_summaries(results: Path) -> None:
    store = ResultStore(ResultsLocation.local(results))
    for track in PAIRWISE:
        records = by_model(store.summaries, track)
        frame = judge_view.consistency_frame(store.boards[track].board, records)
        assert list(frame["Model"]) == ["oracle", "stub-model", judge_view.ALL_MODELS]
        assert set(frame["Order disagreements (%)"]) == {100.0}
        assert set(frame["First shown wins (%)"]) == {100.0}
        assert list(frame["Prompts read in both orders"]) == [2, 2, 4]
        # without the board's record, the summaries give the same table
        assert judge_view.consistency_frame(None, records).equals(frame)
    assert judge_view.consistency_frame(None, {}).empty


def test_the_cost_table_has_each_result(results: Path) -> None:
    store = ResultStore(ResultsLocation.local(results))
    frame = ledger_view.cost_frame(store.summaries)
    assert len(frame) == 4 and set(frame["Priced by"]) == {"prices.yaml"}
    model = frame[frame["Model"] == "stub-model"]
    assert (model["Cost (USD)"] > 0).all() and (model["Judge requests"] == 4).all()
    oracle = frame[frame["Model"] == "oracle"]
    assert (oracle["Requests"] > oracle["Judge requests"]).all()  # its answers count, free


@pytest.fixture(scope="module")
def page(results: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    with (
        serve(results, tmp_path_factory.mktemp("judged_app")) as (url, netlog),
        sync_api.sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url) as watched:
            yield watched.page
            assert watched.dialogs == [] and watched.outside == []
        browser.close()
    assert not netlog.exists() or netlog.read_text() == ""


@pytest.mark.parametrize(("title", "track"), [("ProBench", "probench"),
                                              ("VisionArena-Bench", "visionarena_bench")])  # fmt: skip
def test_the_track_page_shows_swap_consistency(
    page: sync_api.Page, title: str, track: str, tmp_path: Path
) -> None:
    tab(page, title)
    selector = f"#{track}-consistency"
    page.wait_for_selector(selector)
    shown = lines(page, selector)
    for header in ("Order disagreements (%)", "First shown wins (%)", "Unparseable games (%)"):
        assert header in shown
    assert {"stub-model", "oracle", judge_view.ALL_MODELS} <= set(shown)
    assert "100" in shown and "Judge consistency" in page.inner_text("body")
    shot(page, tmp_path, f"consistency_{track}")


def test_the_overview_shows_what_each_result_cost(page: sync_api.Page) -> None:
    tab(page, "Overview")
    page.wait_for_selector("#cost-table")
    shown = lines(page, "#cost-table")
    assert "Cost (USD)" in shown and "prices.yaml" in shown
    assert {"stub-model", "oracle", "ProBench", "VisionArena-Bench"} <= set(shown)
