"""A browsed sample of a pairwise track (ProBench here) says why it has no score and no
reference, instead of an empty Scores table and an empty Reference box; a sample of a scored
track keeps its scores and reference as they are."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.leaderboard import probench_results as pr
from tests.leaderboard.fabricate import write_probench_results
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    choose,
    lines,
    space_page,
    sync_api,
    tab,
    wait_for_value,
)
from vlmscope.leaderboard import browsed_samples as sv
from vlmscope.leaderboard.pairwise_sample import NO_SCORE, RATED_TOGETHER

REFERENCE = f"(no reference: judged against the answer of {pr.BASELINE}, in two games)"


def test_a_pairwise_row_says_why_it_has_no_score() -> None:
    _, _, scored = pr.details("pb-small")[0]
    row = {"sample_id": "x", "scores": {}, "extra": scored.extra, "meta": {}}
    view = sv.sample_view(row)
    assert view.scores.values.tolist() == [[NO_SCORE, None, RATED_TOGETHER]]
    assert view.reference == REFERENCE


def test_a_scored_row_is_shown_as_it_is() -> None:
    row = {"sample_id": "x", "scores": {"accuracy": 1.0}, "extra": {"reference": "B"}}
    view = sv.sample_view(row)
    assert view.scores.values.tolist() == [["accuracy", 1.0, ""]] and view.reference == "B"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    results = tmp_path_factory.mktemp("pairwise") / "results"
    write_probench_results(results)
    with space_page(results, tmp_path_factory.mktemp("pairwise_app")) as page:
        yield page


def test_the_sample_browser_says_why(page: sync_api.Page) -> None:
    tab(page, "Samples")
    choose(page, "#samples-track", pr.TRACK)
    choose(page, "#samples-model", "pb-small")
    wait_for_value(page, "#samples-reference", REFERENCE)
    shown = " ".join(lines(page, "#samples-scores"))
    assert NO_SCORE in shown and "rated with every other" in shown
    sideways = page.evaluate(
        "() => { const v = document.querySelector('#samples-scores .virtual-table-viewport');"
        " return [v.scrollWidth, v.clientWidth]; }"
    )
    assert sideways[0] <= sideways[1]  # the sentence wraps, it is not cut at the right
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "pairwise_sample.png"), full_page=True)
