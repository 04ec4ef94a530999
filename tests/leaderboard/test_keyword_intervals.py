"""Every keyword score on the MEGA-Bench radar has the interval the summary's bootstrap gives,
or says why it has none; the chart draws the intervals as whiskers and names them on hover."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.leaderboard.keyword_results import MODELS, NARROW, WIDE, task_entries, task_meta
from vlmscope.leaderboard import keyword_intervals as kw
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard.charts import keyword_radar
from vlmscope.leaderboard.headline_intervals import OLD_SUMMARY
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.records import SummaryRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.intervals import headline_intervals


@pytest.fixture(scope="module")
def records(keyword_dir: Path) -> dict[str, SummaryRecord]:
    return dict(by_model(ResultStore(ResultsLocation.local(keyword_dir)).summaries, "megabench"))


def _score(scores: list[kw.KeywordScore], model: str, keyword: str) -> kw.KeywordScore:
    return next(s for s in scores if (s.model, s.keyword) == (model, keyword))


def test_keyword_intervals_are_the_bootstraps(records: dict[str, SummaryRecord]) -> None:
    scores = kw.keyword_scores(records, list(MODELS), "skills")
    for model in MODELS:
        expected = headline_intervals(task_entries(model), task_meta())["keywords"]["skills"]
        wide = _score(scores, model, WIDE)
        assert wide.tasks == 12 and wide.reason == ""
        assert wide.bounds is not None
        assert (wide.bounds.lower, wide.bounds.upper) == pytest.approx(
            (100 * expected[WIDE][0], 100 * expected[WIDE][1])
        )
        assert wide.bounds.lower < wide.value < wide.bounds.upper
        assert f"{wide.value:.2f}, 95% CI {wide.interval_text()}; 12 tasks" in wide.hover()
        narrow = _score(scores, model, NARROW)
        assert expected[NARROW] is not None  # the bootstrap has one, too few tasks to trust
        assert (narrow.tasks, narrow.bounds, narrow.reason) == (2, None, kw.TOO_FEW)
        assert narrow.hover().endswith(f"no interval ({kw.TOO_FEW}); 2 tasks")


def test_keywords_without_interval_are_listed_with_the_reason(
    records: dict[str, SummaryRecord],
) -> None:
    scores = kw.keyword_scores(records, list(MODELS), "app")
    assert kw.no_interval_lines(scores) == [f"Rare App (1 task): kw-strong, kw-weak ({kw.TOO_FEW})"]
    single = kw.keyword_scores(records, ["kw-strong"], "app", single_image=True)
    assert single == []  # these results carry no single-image breakdown
    old = {
        m: replace(r, scores={k: v for k, v in r.scores.items() if k != "intervals"})
        for m, r in records.items()
    }
    (common,) = [s for s in kw.keyword_scores(old, ["kw-weak"], "app") if s.tasks >= 5]
    assert (common.bounds, common.reason) == (None, OLD_SUMMARY)


def test_single_image_subset_says_it_has_no_interval(store: ResultStore) -> None:
    records = by_model(store.summaries, "megabench")
    scores = kw.keyword_scores(records, ["oracle"], "input_num", single_image=True)
    assert scores and all(s.reason == kw.SINGLE_IMAGE for s in scores)


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


def test_radar_draws_each_interval_as_a_whisker(records: dict[str, SummaryRecord]) -> None:
    models = list(MODELS)
    frame = mb.keyword_frame(records, models, "app")
    scores = kw.keyword_scores(records, models, "app")
    figure = keyword_radar(frame, models, "Application", scores)
    polygons = [t for t in figure.data if t.fill == "toself"]
    whiskers = [t for t in figure.data if t.mode == "lines"]
    assert [t.name for t in polygons] == models
    assert [t.name for t in whiskers] == [f"{m} 95% CI" for m in models]
    for polygon, whisker in zip(polygons, whiskers, strict=True):
        common = _score(scores, polygon.name, "Common App")
        assert common.bounds is not None
        # only Common App has an interval: one segment, at its angle, in the polygon's colour
        assert list(whisker.theta) == ["Common App", "Common App", None]
        assert list(whisker.r) == [common.bounds.lower, common.bounds.upper, None]
        assert whisker.line.color == polygon.line.color
        assert polygon.hovertext[:2] == (
            _score(scores, polygon.name, "Rare App").hover(),
            common.hover(),
        )
    assert len({t.line.color for t in polygons}) == len(models)
