"""Charts draw what the tables list, with intervals, and no markup from the data."""

from __future__ import annotations

from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.charts import keyword_radar, rate_bars, rating_points
from vlmscope.leaderboard.rating_view import rating_frame, ratings_of
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_battles
from vlmscope.ratings.boards.board import RatingBoard

HOSTILE = "evil<img src=x onerror=window.__pwned=1>"


def test_radar_has_one_closed_polygon_per_model_and_escaped_labels(store: ResultStore) -> None:
    records = by_model(store.summaries, "megabench")
    models = sorted(records)
    figure = keyword_radar(mb.keyword_frame(records, models, "skills"), models, "Skills")
    assert len(figure.data) == 2
    oracle = next(t for t in figure.data if t.name == "oracle")
    assert oracle.theta[0] == oracle.theta[-1] and oracle.r[0] == oracle.r[-1]
    names_and_labels = [t.name for t in figure.data] + list(
        figure.layout.polar.angularaxis.ticktext
    )
    assert not any("<" in label for label in names_and_labels)


def test_ratings_are_points_with_the_boards_asymmetric_intervals(store: ResultStore) -> None:
    """FastChat's form: a point per model with whiskers, no bar whose height (from an axis that
    starts wherever) would read as a ratio of ratings."""
    board = store.boards["visionarena"].board
    ratings = ratings_of(board)
    figure = rating_points(ratings, "x")
    (points,) = figure.data
    assert points.type == "scatter" and points.mode == "markers"
    assert list(points.x) == list(ratings)
    assert points.y[0] == max(r.rating for r in ratings.values())
    assert list(points.error_y.array) == [r.upper - r.rating for r in ratings.values()]
    assert list(points.error_y.arrayminus) == [r.rating - r.lower for r in ratings.values()]
    assert min(points.error_y.arrayminus) >= 0 and min(points.error_y.array) >= 0
    assert figure.layout.yaxis.range is None  # no axis cut to make differences look large


def test_a_hostile_model_name_on_a_board_is_text_in_tables_and_escaped_in_charts() -> None:
    battles = [
        {"model_a": HOSTILE, "model_b": "plain", "winner": w}
        for w in ("model_a", "model_b", "model_a", "tie", "model_a")
    ] * 4
    board = RatingBoard.from_json(rate_battles(battles, BattleSettings(rounds=20, seed=1)))
    assert rating_frame(board)["Model"].tolist() == [HOSTILE, "plain"]  # kept for a text cell
    figure = rating_points(ratings_of(board), f"title {HOSTILE}")
    assert not any("<" in label for label in figure.data[0].x)
    assert "<" not in figure.layout.title.text


def test_rate_bars_group_by_model(store: ResultStore) -> None:
    records = by_model(store.summaries, "simplevqa")
    figure = rate_bars(svqa.rate_points(records, "By language", "F"), "F", "title")
    assert [t.name for t in figure.data] == ["svqa-strong", "svqa-weak"]
    assert all(list(t.x) == ["CN", "EN"] for t in figure.data)
    assert all(min(t.error_y.array) >= 0 for t in figure.data)
