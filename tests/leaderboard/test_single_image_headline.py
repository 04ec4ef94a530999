"""The MEGA-Bench headline table shows the single-image overall with the subset's own 95%
interval, written as the full benchmark's is; a summary written before the subset's intervals
were recorded shows (no CI) there, and the reason is listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.leaderboard.fabricate import HOSTILE_MODEL
from tests.leaderboard.keyword_results import MODELS, task_entries, task_meta, written_before
from vlmscope.leaderboard import megabench_headline_ci as ci
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard.headline_intervals import NO_CI, OLD_SINGLE_IMAGE, OLD_SUMMARY
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.records import SummaryRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY, subset_intervals
from vlmscope.tracks.megabench.single_image import single_image_entries

SINGLE, SINGLE_CI = "Single-image overall", "Single-image overall 95% CI"


@pytest.fixture(scope="module")
def records(keyword_dir: Path) -> dict[str, SummaryRecord]:
    return dict(by_model(ResultStore(ResultsLocation.local(keyword_dir)).summaries, "megabench"))


def test_the_single_image_overall_shows_the_subsets_interval(
    records: dict[str, SummaryRecord],
) -> None:
    frame = mb.headline_frame(records).set_index("Model")
    assert list(frame.columns).index(SINGLE_CI) == list(frame.columns).index(SINGLE) + 1
    for model in MODELS:
        single = single_image_entries(task_entries(model), task_meta())
        lower, upper = subset_intervals(single, task_meta())["overall"]
        row = frame.loc[model]
        assert row[SINGLE_CI] == f"{100 * lower:.2f} - {100 * upper:.2f}"
        low, high = (float(x) for x in row[SINGLE_CI].split(" - "))
        assert low <= row[SINGLE] <= high
        assert row[SINGLE_CI] != row["Overall 95% CI"]  # the subset's own, not the full one's
    assert ci.no_interval_lines(records) == []


def test_older_summaries_say_why_the_single_image_overall_has_no_interval(
    records: dict[str, SummaryRecord],
) -> None:
    before = written_before(records, "intervals", SINGLE_IMAGE_KEY)
    frame = mb.headline_frame(before).set_index("Model")
    full = mb.headline_frame(records).set_index("Model")
    for model in MODELS:
        assert frame.loc[model, SINGLE_CI] == NO_CI and frame.loc[model, SINGLE] > 0
        assert frame.loc[model, "Overall 95% CI"] == full.loc[model, "Overall 95% CI"]
    assert ci.no_interval_lines(before) == [f"{SINGLE}: {m} ({OLD_SINGLE_IMAGE})" for m in MODELS]
    oldest = written_before(records, "intervals")
    assert set(mb.headline_frame(oldest)[SINGLE_CI]) == {NO_CI}
    assert ci.no_interval_lines(oldest) == [
        f"{column}: {m} ({OLD_SUMMARY})"
        for column in ("Overall", "Core", "Open", SINGLE)
        for m in MODELS
    ]


def test_a_run_shows_its_single_image_interval(store: ResultStore) -> None:
    records = by_model(store.summaries, "megabench")
    frame = mb.headline_frame(records).set_index("Model")
    oracle = records["oracle"].scores
    lower, upper = oracle["intervals"][SINGLE_IMAGE_KEY]["overall"]
    assert frame.loc["oracle", SINGLE_CI] == f"{100 * lower:.2f} - {100 * upper:.2f}"
    # a summary with no interval and no single-image number: marked where it has a number
    assert frame.loc[HOSTILE_MODEL, SINGLE_CI] == ""
    assert frame.loc[HOSTILE_MODEL, "Overall 95% CI"] == NO_CI
    assert f"Overall: {HOSTILE_MODEL} ({OLD_SUMMARY})" in ci.no_interval_lines(records)
