"""Charts draw what the tables list, with intervals, and no markup from the data."""

from __future__ import annotations

from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.charts import keyword_radar, rate_bars, rating_bars
from vlmscope.leaderboard.rating_view import Rating
from vlmscope.leaderboard.store import ResultStore


def test_radar_has_one_closed_polygon_per_model_and_escaped_labels(store: ResultStore) -> None:
    records = mb.megabench_records(store.summaries)
    models = sorted(records)
    figure = keyword_radar(mb.keyword_frame(records, models, "skills"), models, "Skills")
    assert len(figure.data) == 2
    oracle = next(t for t in figure.data if t.name == "oracle")
    assert oracle.theta[0] == oracle.theta[-1] and oracle.r[0] == oracle.r[-1]
    names_and_labels = [t.name for t in figure.data] + [k for t in figure.data for k in t.theta]
    assert not any("<" in label for label in names_and_labels)


def test_rating_bars_carry_asymmetric_intervals() -> None:
    figure = rating_bars({"a": Rating(1000, 990, 1030), "b": Rating(1050, 1000, 1060)}, "x")
    bar = figure.data[0]
    assert list(bar.x) == ["b", "a"]
    assert list(bar.error_y.array) == [10, 30] and list(bar.error_y.arrayminus) == [50, 10]
    assert figure.layout.yaxis.range[0] < 990 < 1060 < figure.layout.yaxis.range[1]


def test_rate_bars_group_by_model(store: ResultStore) -> None:
    records = svqa.simplevqa_records(store.summaries)
    figure = rate_bars(svqa.rate_points(records, "By language", "F"), "F", "title")
    assert [t.name for t in figure.data] == ["svqa-strong", "svqa-weak"]
    assert all(list(t.x) == ["EN", "ZH"] for t in figure.data)
    assert all(min(t.error_y.array) >= 0 for t in figure.data)
