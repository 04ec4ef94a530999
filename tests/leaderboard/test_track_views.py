"""MEGA-Bench, SimpleVQA and rating page data, from the results their real producers wrote."""

from __future__ import annotations

import dataclasses
import math

import pytest

from tests.leaderboard.fabricate import arena_golden
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.rating_view import (
    OVERALL,
    RATING_COLUMNS,
    board_note,
    board_view,
    categories,
    has_style_control,
    rating_frame,
    style_frame,
    view_label,
)
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.board import RatingBoard

TOP = "glm-4v-72b-07"  # first on the overall board of the golden battles
SHOWN = ("captioning", "ocr", "diagram", "english")


def test_megabench_keyword_tables_cover_the_five_dimensions(store: ResultStore) -> None:
    records = by_model(store.summaries, "megabench")
    assert mb.default_models(records) == ["oracle", next(m for m in records if m != "oracle")]
    for dimension in mb.DIMENSIONS:
        frame = mb.keyword_frame(records, ["oracle"], dimension)
        assert len(frame) > 0 and list(frame.columns) == ["Keyword", "Tasks", "oracle"]
    skills = mb.keyword_frame(records, ["oracle"], "skills").set_index("Keyword")
    # four tasks: the open one (no judge, 0) and three Core tasks at 1
    assert skills.loc["Object Recognition and Classification", "oracle"] == 75.0
    assert skills.loc["Object Recognition and Classification", "Tasks"] == 4
    single = mb.keyword_frame(records, ["oracle"], "input_num", single_image=True)
    assert "video" not in set(single["Keyword"])  # the single-image subset has no video tasks
    headline = mb.headline_frame(records).set_index("Model")
    assert headline.loc["oracle", "Single-image overall"] == 80.0


def test_megabench_models_missing_a_keyword_show_empty_cells(store: ResultStore) -> None:
    records = by_model(store.summaries, "megabench")
    frame = mb.keyword_frame(records, list(records), "skills")
    hostile = next(m for m in records if m != "oracle")
    assert math.isnan(frame.set_index("Keyword").loc["Text Recognition (OCR)", hostile])
    assert mb.keyword_frame(records, ["nobody"], "skills").empty


def test_simplevqa_rates_with_intervals_by_group(store: ResultStore) -> None:
    records = by_model(store.summaries, "simplevqa")
    overall = svqa.factuality_frame(records, "Overall").set_index("Model")
    assert overall.loc["svqa-strong", "CO"] == 100.0 and overall.loc["svqa-strong", "Graded"] == 6
    # svqa-weak: right on 2 of 6, "I don't know" on 2, wrong on 2
    weak = overall.loc["svqa-weak"]
    assert (weak["CO"], weak["NA"], weak["IN"], weak["CGA"], weak["F"]) == (
        33.33,
        33.33,
        33.33,
        50.0,
        40.0,
    )
    low, high = (float(x) for x in weak["F 95% CI"].split(" - "))
    assert low < weak["F"] < high
    by_language = svqa.factuality_frame(records, "By language")
    assert sorted(set(by_language["Group"])) == ["CN", "EN"] and len(by_language) == 4
    by_domain = svqa.factuality_frame(records, "By domain").set_index(["Model", "Group"])
    assert by_domain.loc[("svqa-weak", "Life"), "CO"] == 50.0
    points = svqa.rate_points(records, "By language", "CGA")
    assert len(points) == 4 and all(p.lower is not None and p.lower <= p.value for p in points)


def test_simplevqa_reads_partial_summaries() -> None:
    assert svqa.groups_of({"F": 0.5}, "Overall") == {"all": {"F": 0.5}}
    assert svqa.interval({"ci95": {"F": [0.1]}}, "F") is None
    assert svqa.interval({"ci95": None}, "F") is None
    assert svqa.groups_of({"by_language": ["EN"]}, "By language") == {}


def _board(store: ResultStore) -> RatingBoard:
    return store.boards["visionarena"].board


def test_rating_board_categories_and_style_control(store: ResultStore) -> None:
    board = _board(store)
    assert categories(board) == [OVERALL, *sorted(board.categories)]
    assert set(SHOWN) <= set(board.categories)  # `--result-dir` rates every category
    assert has_style_control(board) and not board.is_style_controlled
    plain, styled = board_view(board), board_view(board, style_control=True)
    assert plain is board and styled is board.style_control and styled is not None
    assert styled.style_coefficients is not None
    ocr = board_view(board, "ocr", style_control=True)
    assert ocr is not None and ocr.is_style_controlled
    assert board_view(board, "no-such-category") is None


def test_rating_frame_shows_the_boards_numbers(store: ResultStore) -> None:
    board = _board(store)
    frame = rating_frame(board_view(board))
    assert list(frame.columns) == RATING_COLUMNS and len(frame) == len(board.models)
    top = frame.iloc[0]
    entry = board.models[TOP]
    assert top["Model"] == TOP and top["Rank"] == entry.rank == 1
    assert top["Rating"] == round(entry.rating, 1) and top["Battles"] == entry.battles
    assert top["Win rate"] == round(entry.win_rate or 0, 2)
    assert top["95% CI"] == f"+{entry.upper - entry.rating:.1f} / -{entry.rating - entry.lower:.1f}"
    assert list(frame["Rating"]) == sorted(frame["Rating"], reverse=True)
    # the rank is the board's: FastChat's own final ranking of these battles
    golden = arena_golden("full")["final_ranking"]
    assert {m: float(r) for m, r in zip(frame["Model"], frame["Rank"], strict=True)} == golden


def test_style_coefficients_and_unreported_views(store: ResultStore) -> None:
    board = _board(store)
    coefficients = style_frame(board_view(board, style_control=True)).set_index("Feature")
    assert list(coefficients.index) == ["tokens", "headers", "lists", "bold"]
    assert coefficients.loc["tokens", "Coefficient"] > 0  # longer answers win votes
    assert style_frame(board_view(board)).empty and rating_frame(None).empty
    assert view_label("VisionArena", "x", False, None) == "VisionArena, x: not reported"
    assert "4772 battles" in view_label("VisionArena", OVERALL, False, board_view(board))


@pytest.mark.parametrize("category", SHOWN)
def test_every_category_board_has_its_own_fit(store: ResultStore, category: str) -> None:
    board = _board(store)
    view = board_view(board, category)
    assert view is not None and view.models.keys() <= board.models.keys()
    assert rating_frame(view)["Rating"].tolist() != rating_frame(board)["Rating"].tolist()


def test_board_note_says_where_the_board_came_from(store: ResultStore) -> None:
    record = store.boards["visionarena"]
    note = board_note(record, "VisionArena")
    assert "one Bradley-Terry fit over 10 models from 4772 battles (ratings battles" in note
    assert "battles\\_5k\\.jsonl" in note and "fastchat reference" in note
    hostile = dataclasses.replace(record, source="<img src=x onerror=alert(1)> [x](y)")
    shown = board_note(hostile, "<b>t</b>")
    assert "<img" not in shown and "<b>" not in shown and "](" not in shown


def test_the_simplevqa_page_says_which_models_were_not_graded_the_papers_way():
    from pathlib import Path

    from vlmscope.leaderboard.records import SummaryRecord
    from vlmscope.leaderboard.simplevqa_view import grading_note

    def record(model: str, protocol: str) -> SummaryRecord:
        scores = {"F": 1.0, "grader": {"protocol": protocol}}
        return SummaryRecord(model, "simplevqa", 6, scores, {}, {}, "", "", "", Path("."))

    paper = record("a", "llm (the paper's grading with a judge)")
    offline = record("b", "offline_match (not the paper's LLM grading)")
    assert grading_note({"a": paper}) == ""
    assert grading_note({"a": paper, "b": offline}) == (
        "Not the paper's grading for these models: b: offline_match (not the paper's LLM grading)."
    )


def test_the_simplevqa_page_says_why_a_model_has_no_rates():
    from pathlib import Path

    from vlmscope.leaderboard.records import SummaryRecord
    from vlmscope.leaderboard.simplevqa_view import ungraded_note

    scores = {"F": None, "n_graded": 0, "note": "every grader reply was unparseable"}
    empty = SummaryRecord("m", "simplevqa", 6, scores, {}, {}, "", "", "", Path("."))
    graded = SummaryRecord(
        "g", "simplevqa", 6, {"F": 0.5, "n_graded": 6}, {}, {}, "", "", "", Path(".")
    )
    assert ungraded_note({"g": graded}) == ""
    assert ungraded_note({"g": graded, "m": empty}) == (
        "m: n/a, no item graded (every grader reply was unparseable)"
    )
