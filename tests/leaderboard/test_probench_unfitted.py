"""ProBench's official table and the overview say why a row is empty: a model whose fits could
not be made (here every track skipped, as the demo's oracle is) is listed under the table with
each track's reason, in the browser as in the pure function; fitted models are not listed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard import probench_results as pr
from tests.leaderboard.fabricate import track_result, write_probench_results
from tests.leaderboard.test_browser import (
    lines,
    space_page,
    sync_api,
    tab,
)
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.probench_gaps import unfitted_lines
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.runner.results import write_result

UNFIT = "pb-unfit"
REASON = "style control: feature 'tokens' is the same for every battle"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("unfitted") / "results"
    write_probench_results(folder)
    summary = pr.summary("pb-large")
    summary["skipped"] = {track: REASON for track in summary["tracks"]}
    summary["tracks"], summary["breakdowns"] = {}, {}
    write_result(folder, track_result(UNFIT, pr.TRACK, summary, pr.details("pb-large")))
    return folder


def test_the_unfitted_model_is_listed_with_its_reason(results: Path) -> None:
    store = ResultStore(ResultsLocation.local(results))
    listed = unfitted_lines(by_model(store.summaries, pr.TRACK))
    assert listed == [
        f"{UNFIT} (Single-round, Multi-round, Multi-linguistic): not fitted: {REASON}"
    ]


@pytest.fixture(scope="module")
def page(results: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    with space_page(results, tmp_path_factory.mktemp("unfitted_app")) as page:
        yield page


def test_the_page_says_why_a_row_is_empty(page: sync_api.Page) -> None:
    tab(page, "ProBench")
    page.wait_for_selector("#probench-unfitted")
    shown = " ".join(lines(page, "#probench-unfitted"))
    assert "Empty cells above, and why" in shown and UNFIT in shown and REASON in shown
    assert "pb-large" not in shown and pr.BASELINE not in shown
    assert UNFIT in lines(page, "#probench-official")  # the empty row it explains


def test_the_overview_says_why_its_probench_cells_are_empty(page: sync_api.Page) -> None:
    tab(page, "Overview")
    page.wait_for_selector("#overview-probench-unfitted")
    shown = " ".join(lines(page, "#overview-probench-unfitted"))
    assert "Empty ProBench cells" in shown and UNFIT in shown and REASON in shown
    assert "pb-large" not in shown
