"""MEGA-Bench, SimpleVQA and rating page data, from real and fabricated summaries."""

from __future__ import annotations

import math

import pytest

from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.rating_view import (
    Rating,
    board_categories,
    board_ratings,
    ci_ranks,
    has_style_control,
    is_rating_summary,
    rating_board,
    rating_frame,
)
from vlmscope.leaderboard.store import ResultStore


def test_megabench_keyword_tables_cover_the_five_dimensions(store: ResultStore) -> None:
    records = mb.megabench_records(store.summaries)
    assert mb.default_models(records) == ["oracle", next(m for m in records if m != "oracle")]
    for dimension in mb.DIMENSIONS:
        frame = mb.keyword_frame(records, ["oracle"], dimension)
        assert len(frame) > 0 and list(frame.columns) == ["Keyword", "Tasks", "oracle"]
    skills = mb.keyword_frame(records, ["oracle"], "skills").set_index("Keyword")
    assert skills.loc["Object Recognition and Classification", "oracle"] == 66.67
    assert skills.loc["Object Recognition and Classification", "Tasks"] == 3
    single = mb.keyword_frame(records, ["oracle"], "input_num", single_image=True)
    assert "video" not in set(single["Keyword"])  # the single-image subset has no video tasks
    headline = mb.headline_frame(records).set_index("Model")
    assert headline.loc["oracle", "Single-image overall"] == 80.0


def test_megabench_models_missing_a_keyword_show_empty_cells(store: ResultStore) -> None:
    records = mb.megabench_records(store.summaries)
    frame = mb.keyword_frame(records, list(records), "skills")
    hostile = next(m for m in records if m != "oracle")
    assert math.isnan(frame.set_index("Keyword").loc["Text Recognition (OCR)", hostile])
    assert mb.keyword_frame(records, ["nobody"], "skills").empty


def test_simplevqa_rates_with_intervals_by_group(store: ResultStore) -> None:
    records = svqa.simplevqa_records(store.summaries)
    overall = svqa.factuality_frame(records, "Overall").set_index("Model")
    assert overall.loc["svqa-strong", "CO"] == 70.0 and overall.loc["svqa-strong", "Graded"] == 20
    assert overall.loc["svqa-weak", "IN"] == 50.0
    low, high = (float(x) for x in overall.loc["svqa-strong", "F 95% CI"].split(" - "))
    assert low < overall.loc["svqa-strong", "F"] < high
    by_language = svqa.factuality_frame(records, "By language")
    assert sorted(set(by_language["Group"])) == ["EN", "ZH"] and len(by_language) == 4
    assert svqa.factuality_frame(records, "By domain").empty  # not in these summaries
    points = svqa.rate_points(records, "By language", "CGA")
    assert len(points) == 4 and all(p.lower is not None and p.lower <= p.value for p in points)


def test_simplevqa_reads_partial_summaries() -> None:
    assert svqa.groups_of({"F": 0.5}, "Overall") == {"all": {"F": 0.5}}
    assert svqa.interval({"ci95": {"F": [0.1]}}, "F") is None
    assert svqa.interval({"ci95": None}, "F") is None
    assert svqa.groups_of({"by_language": ["EN"]}, "By language") == {}


def test_rating_board_categories_and_style_control(store: ResultStore) -> None:
    board = rating_board(store.summaries, "visionarena")
    assert board is not None and is_rating_summary(board)
    assert rating_board(store.summaries, "megabench") is None
    assert board_categories(board) == ["overall", "captioning", "ocr"]
    assert has_style_control(board)
    assert list(board_ratings(board, style_control=True)) == ["arena-a", "arena-b"]
    assert board_ratings(board, "ocr")["arena-b"] == Rating(1090.0, 1070.0, 1110.0)
    assert board_ratings(board, "captioning")["arena-c"].rating == 1200.0
    assert board_ratings(board, "captioning", style_control=True) == {}
    assert board_ratings(board, "no-such-category") == {}


def test_ci_ranks_share_a_rank_when_intervals_overlap() -> None:
    ratings = {
        "a": Rating(1100, 1080, 1120),
        "b": Rating(1050, 1030, 1070),
        "c": Rating(1045, 1020, 1081),
    }
    assert ci_ranks(ratings) == {"a": 1, "b": 2, "c": 1}  # c's interval reaches a's
    frame = rating_frame(ratings)
    assert list(frame["Model"]) == ["a", "b", "c"] and list(frame["Rank"]) == [1, 2, 1]
    assert frame.iloc[1]["95% CI"] == "+20.0 / -20.0"


@pytest.mark.parametrize(
    "entry",
    [
        {"rating": "1000", "lower": 1, "upper": 2},
        {"rating": 1.0},
        None,
        {"rating": float("nan"), "lower": 0, "upper": 1},
    ],
)
def test_malformed_ratings_are_skipped(entry: object) -> None:
    board = {"ratings": {"bad": entry, "good": {"rating": 1.0, "lower": 0.5, "upper": 1.5}}}
    assert list(board_ratings(board)) == ["good"]
