"""A MEGA-Bench run without a single-image subset (its Core or Open set of single-image tasks is
empty, so the official tool writes no subset files and the summary's `single_image` block is
null) is shown beside one with a subset: the page says the run has no single-image tasks, under
the headline table and under the keyword chart of the subset, and nothing fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard import keyword_results as kr
from tests.leaderboard.fabricate import track_result
from tests.leaderboard.test_browser import (
    browse,
    chromium,  # noqa: F401 (fixture)
    serve,
    sync_api,
    tab,
    wait_for_text,
)
from vlmscope.leaderboard import keyword_intervals as kw
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.records import SummaryRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.messages import Response, user_request
from vlmscope.runner.results import write_result
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY

WITH, WITHOUT = "kw-strong", "kw-no-single-image"


def _without_subset(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary as a run's report writes it when the official tool writes no subset files
    (its `intervals.single_image` stays: the bootstrap over the tasks there are)."""
    assert SINGLE_IMAGE_KEY in summary["intervals"]
    return {**summary, "single_image": None, "single_image_overall": None}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("no_single_image") / "results"
    name = kr.task_name(0)
    row = (
        Sample(f"{name}/0", user_request("question"), {"task_name": name}),
        Response("answer"),
        Scored(f"{name}/0", {"query_score": 1.0}),
    )
    for model, summary in (
        (WITH, kr.summary(WITH)),
        (WITHOUT, _without_subset(kr.summary("kw-weak"))),
    ):
        write_result(out / model, track_result(model, "megabench", summary, [row]))
    return out


@pytest.fixture(scope="module")
def records(results: Path) -> dict[str, SummaryRecord]:
    return dict(by_model(ResultStore(ResultsLocation.local(results)).summaries, "megabench"))


def test_the_run_without_a_subset_is_named_and_its_numbers_left_empty(
    records: dict[str, SummaryRecord],
) -> None:
    assert mb.no_single_image_lines(records, [WITH, WITHOUT, "absent"]) == [
        f"{WITHOUT}: {mb.NO_SINGLE_IMAGE}"
    ]
    frame = mb.headline_frame(records).set_index("Model")
    assert frame.loc[WITHOUT, "Single-image overall"] != frame.loc[WITHOUT, "Single-image overall"]
    assert frame.loc[WITHOUT, "Single-image overall 95% CI"] == ""
    assert frame.loc[WITH, "Single-image overall 95% CI"] != ""
    assert frame.loc[WITHOUT, "Overall 95% CI"] != ""  # the full benchmark's numbers stay
    keywords = mb.keyword_frame(records, [WITH, WITHOUT], "skills", single_image=True)
    assert keywords[WITHOUT].isna().all() and keywords[WITH].notna().all()
    scores = kw.keyword_scores(records, [WITH, WITHOUT], "skills", single_image=True)
    assert {s.model for s in scores} == {WITH}


def test_the_page_says_the_run_has_no_single_image_tasks(
    results: Path,
    chromium: sync_api.Browser,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    line = f"{WITHOUT}: no single-image tasks in this run"
    with serve(results, tmp_path_factory.mktemp("app")) as (url, _), browse(chromium, url) as seen:
        page = seen.page
        tab(page, "MEGA-Bench")
        headline = page.locator("#megabench-headline-no-ci").inner_text()
        assert line in headline and WITH not in headline
        page.wait_for_selector(".js-plotly-plot .polarlayer .trace")
        assert "no single-image tasks" not in page.locator("#megabench-keywords-no-ci").inner_text()
        page.get_by_label("Single-image subset").check()
        wait_for_text(page, "#megabench-keywords-no-ci", line)
        assert WITH + ":" not in page.locator("#megabench-keywords-no-ci").inner_text()
        page.get_by_label("Single-image subset").uncheck()
        wait_for_text(page, "#megabench-keywords-no-ci", "", absent="no single-image tasks")
        assert seen.dialogs == [] and seen.outside == []
