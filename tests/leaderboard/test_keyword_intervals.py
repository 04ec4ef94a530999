"""Every keyword score on the MEGA-Bench radar, of the full benchmark and of its single-image
subset, has the interval the summary's bootstrap gives, or says why it has none; the chart draws
the intervals as whiskers and names them on hover."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.leaderboard.keyword_results import (
    MODELS,
    NARROW,
    SEVERAL_IMAGES,
    WIDE,
    task_entries,
    task_meta,
    written_before,
)
from vlmscope.leaderboard import keyword_intervals as kw
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard.charts import keyword_radar
from vlmscope.leaderboard.headline_intervals import OLD_SUMMARY
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.radar_dodge import dodge_offsets, keyword_angles
from vlmscope.leaderboard.records import SummaryRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.intervals import (
    SINGLE_IMAGE_KEY,
    headline_intervals,
    subset_intervals,
)
from vlmscope.tracks.megabench.single_image import single_image_entries


@pytest.fixture(scope="module")
def records(keyword_dir: Path) -> dict[str, SummaryRecord]:
    return dict(by_model(ResultStore(ResultsLocation.local(keyword_dir)).summaries, "megabench"))


def _score(scores: list[kw.KeywordScore], model: str, keyword: str) -> kw.KeywordScore:
    return next(s for s in scores if (s.model, s.keyword) == (model, keyword))


def test_keyword_intervals_are_the_bootstraps(records: dict[str, SummaryRecord]) -> None:
    scores = kw.keyword_scores(records, list(MODELS), "skills")
    for model in MODELS:
        expected = headline_intervals(task_entries(model), task_meta())["keywords"]["skills"]
        _assert_bootstrap_bounds(_score(scores, model, WIDE), expected[WIDE], tasks=12)
        narrow = _score(scores, model, NARROW)
        assert expected[NARROW] is not None  # the bootstrap has one, too few tasks to trust
        assert (narrow.tasks, narrow.bounds, narrow.reason) == (2, None, kw.TOO_FEW)
        assert narrow.hover().endswith(f"no interval ({kw.TOO_FEW}); 2 tasks")


def test_keywords_without_interval_are_listed_with_the_reason(
    records: dict[str, SummaryRecord],
) -> None:
    scores = kw.keyword_scores(records, list(MODELS), "app")
    assert kw.no_interval_lines(scores) == [f"Rare App (1 task): kw-strong, kw-weak ({kw.TOO_FEW})"]
    old = {
        m: replace(r, scores={k: v for k, v in r.scores.items() if k != "intervals"})
        for m, r in records.items()
    }
    (common,) = [s for s in kw.keyword_scores(old, ["kw-weak"], "app") if s.tasks >= 5]
    assert (common.bounds, common.reason) == (None, OLD_SUMMARY)


def test_single_image_keywords_have_the_subsets_intervals(
    records: dict[str, SummaryRecord],
) -> None:
    scores = kw.keyword_scores(records, list(MODELS), "skills", single_image=True)
    for model in MODELS:
        single = single_image_entries(task_entries(model), task_meta())
        assert len(single) == 12 - len(SEVERAL_IMAGES)
        expected = subset_intervals(single, task_meta())["keywords"]["skills"]
        full = headline_intervals(task_entries(model), task_meta())["keywords"]["skills"]
        assert expected[WIDE] != full[WIDE]  # the subset's own bootstrap, not the full one's
        _assert_bootstrap_bounds(_score(scores, model, WIDE), expected[WIDE], tasks=10)
        narrow = _score(scores, model, NARROW)
        assert (narrow.tasks, narrow.bounds, narrow.reason) == (2, None, kw.TOO_FEW)


def test_older_summaries_show_single_image_keywords_without_interval(
    records: dict[str, SummaryRecord],
) -> None:
    # written before the subset's intervals were recorded: the full benchmark's still show
    before = written_before(records, "intervals", SINGLE_IMAGE_KEY)
    single = kw.keyword_scores(before, list(MODELS), "skills", single_image=True)
    wide = [s for s in single if s.keyword == WIDE]
    assert len(wide) == 2 and all((s.bounds, s.reason) == (None, kw.SINGLE_IMAGE) for s in wide)
    assert wide[0].hover().endswith(f"no interval ({kw.SINGLE_IMAGE}); 10 tasks")
    assert f"{WIDE} (10 tasks): kw-strong, kw-weak ({kw.SINGLE_IMAGE})" in kw.no_interval_lines(
        single
    )
    assert _score(kw.keyword_scores(before, list(MODELS), "skills"), "kw-weak", WIDE).bounds
    # written before any interval was recorded
    oldest = written_before(records, "intervals")
    (wide_old,) = [
        s
        for s in kw.keyword_scores(oldest, ["kw-weak"], "skills", single_image=True)
        if s.keyword == WIDE
    ]
    assert (wide_old.bounds, wide_old.reason) == (None, OLD_SUMMARY)


def test_a_run_records_the_single_image_intervals(store: ResultStore) -> None:
    scores = by_model(store.summaries, "megabench")["oracle"].scores
    block = scores["intervals"][SINGLE_IMAGE_KEY]
    stats = scores["single_image"]["keyword_stats"]
    assert set(block["keywords"]) == set(stats)
    for dimension, keywords in stats.items():
        assert set(block["keywords"][dimension]) == set(keywords), dimension
    # the sample's five single-image tasks all take one image: that keyword shows the block's
    (one,) = kw.keyword_scores(
        by_model(store.summaries, "megabench"), ["oracle"], "input_num", single_image=True
    )
    lower, upper = block["keywords"]["input_num"]["1-image"]
    assert (one.keyword, one.tasks, one.reason) == ("1-image", 5, "")
    assert one.bounds == kw.Bounds(100 * lower, 100 * upper)


def test_table_adds_an_interval_column_per_model(records: dict[str, SummaryRecord]) -> None:
    frame = mb.keyword_frame(records, list(MODELS), "skills")
    shown = kw.with_intervals(frame, kw.keyword_scores(records, list(MODELS), "skills"))
    assert list(shown.columns) == [
        "Keyword",
        "Tasks",
        "kw-strong",
        "kw-strong 95% CI",
        "kw-weak",
        "kw-weak 95% CI",
    ]
    rows = shown.set_index("Keyword")
    assert rows.loc[NARROW, "kw-weak 95% CI"] == "(no CI)"
    low, high = map(float, rows.loc[WIDE, "kw-weak 95% CI"].split(" - "))
    assert low < rows.loc[WIDE, "kw-weak"] < high


def test_radar_draws_each_interval_as_a_whisker_beside_the_other_models(
    records: dict[str, SummaryRecord],
) -> None:
    models = list(MODELS)
    frame = mb.keyword_frame(records, models, "app")
    scores = kw.keyword_scores(records, models, "app")
    figure = keyword_radar(frame, models, "Application", scores)
    axis = figure.layout.polar.angularaxis
    assert list(axis.ticktext) == ["Rare App", "Common App"]
    assert list(axis.tickvals) == keyword_angles(2) == [0.0, 180.0]
    polygons = [t for t in figure.data if t.fill == "toself"]
    whiskers = [t for t in figure.data if t.mode == "lines"]
    markers = [t for t in figure.data if t.mode == "markers"]
    assert [t.name for t in polygons] == [t.name for t in markers] == models
    assert [t.name for t in whiskers] == [f"{m} 95% CI" for m in models]
    offsets = dodge_offsets(len(models), 2)
    assert offsets[0] < 0 < offsets[1]
    for polygon, whisker, marker, offset in zip(polygons, whiskers, markers, offsets, strict=True):
        assert list(polygon.theta) == [0.0, 180.0, 0.0]  # the polygon stays on the spokes
        rare, common = (_score(scores, polygon.name, k) for k in ("Rare App", "Common App"))
        assert common.bounds is not None and rare.bounds is None
        # only Common App has an interval: one segment, turned off its spoke, in the colour
        assert list(whisker.customdata) == ["Common App", "Common App", None]
        assert list(whisker.theta) == [180.0 + offset, 180.0 + offset, None]
        assert list(whisker.r) == [common.bounds.lower, common.bounds.upper, None]
        assert whisker.line.color == marker.marker.color == polygon.line.color
        # every score has its marker at the same turned angle, named on hover
        assert list(marker.customdata) == ["Rare App", "Common App"]
        assert list(marker.theta) == [offset, 180.0 + offset]
        assert list(marker.r) == [rare.value, common.value]
        assert list(marker.hovertext) == [rare.hover(), common.hover()]
        assert "%{fullData.name}" in marker.hovertemplate
        assert polygon.hovertext[:2] == (rare.hover(), common.hover())
    assert whiskers[0].theta[0] != whiskers[1].theta[0]
    assert len({t.line.color for t in polygons}) == len(models)


def _assert_bootstrap_bounds(
    score: kw.KeywordScore, expected: tuple[float, float], tasks: int
) -> None:
    """`score` carries the bootstrap's `expected` [lower, upper] (as percentages) around its
    value, its task count and no reason, and its hover says so."""
    assert (score.tasks, score.reason) == (tasks, "")
    assert score.bounds is not None
    assert (score.bounds.lower, score.bounds.upper) == pytest.approx(
        (100 * expected[0], 100 * expected[1])
    )
    assert score.bounds.lower < score.value < score.bounds.upper
    assert f"{score.value:.2f}, 95% CI {score.interval_text()}; {tasks} tasks" in score.hover()
