"""Producer -> result folder -> `ResultStore` -> page function, once per producer.

Each result in the shared folder was written by the code that writes it for real (see
`fabricate`); these tests check that the numbers a page shows are the producer's numbers, read
back independently: the run's own summary through `load_folder` (the `datasets` reader a user
would use), or FastChat's reference leaderboard of the same battles.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.fabricate import ARENA_GOLDEN, ARENA_TRACK, arena_golden
from tests.ratings.arena_golden import SEPARABLE
from vlmscope.hub_export import load_folder
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.overview_cells import overview_cells
from vlmscope.leaderboard.rating_view import board_view, rating_frame, ratings_of, style_frame
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.track_info import headlines_for
from vlmscope.runner.results import BoardResult, result_dir, write_board_result

TOP = "glm-4v-72b-07"


def _summary(folder: Path) -> dict[str, Any]:
    scores: dict[str, Any] = load_folder(folder, "summary")[0]["scores"]
    return scores


def _row(frame, model):  # noqa: ANN001, ANN202
    return frame[frame["Model"] == model].iloc[0]


def _ratings(store: ResultStore, category: str, style_control: bool) -> dict[str, float]:
    view = board_view(store.boards[ARENA_TRACK].board, category, style_control=style_control)
    frame = rating_frame(view)
    return dict(zip(frame["Model"], frame["Rating"], strict=True))


def test_simplevqa_run_reaches_the_overview_and_its_page(
    results_dir: Path, store: ResultStore
) -> None:
    frame = overview_frame(store.summaries, store.boards)
    records = by_model(store.summaries, "simplevqa")
    for model in ("svqa-strong", "svqa-weak"):
        summary = _summary(result_dir(results_dir / "simplevqa_run", model, "simplevqa"))
        row = _row(frame, model)
        assert row["SimpleVQA F"] == round(100 * summary["F"], 2)
        assert row["SimpleVQA CGA"] == round(100 * summary["CGA"], 2)
        for breakdown, key in svqa.BREAKDOWNS.items():
            shown = svqa.factuality_frame({model: records[model]}, breakdown)
            tables = {"all": summary["overall"]} if key == "overall" else summary[key]
            assert list(shown["Group"]) == list(tables)
            assert list(shown["CO"]) == [round(100 * t["CO"], 2) for t in tables.values()]
    assert _row(frame, "svqa-weak")["SimpleVQA F"] == 40.0  # 2 right, 2 not attempted, 2 wrong


def test_megabench_run_reaches_the_overview(results_dir: Path, store: ResultStore) -> None:
    summary = _summary(result_dir(results_dir / "megabench_run", "oracle", "megabench"))
    row = _row(overview_frame(store.summaries, store.boards), "oracle")
    for head in headlines_for("megabench", store.summaries):
        assert row[f"MEGA-Bench {head.label}"] == round(100 * summary[head.keys[0]], 2)
    assert row["MEGA-Bench overall"] == 87.5  # 7 Core tasks at 1, the Open task at 0


def test_a_track_without_headlines_shows_its_first_scores(
    results_dir: Path, store: ResultStore
) -> None:
    summary = _summary(result_dir(results_dir / "colours_run", "colour-oracle", "colours"))
    # `n` (a count, 8) is not a 0-1 score: shown as a percentage it would read 800
    assert [h.label for h in headlines_for("colours", store.summaries)] == ["accuracy"]
    row = _row(overview_frame(store.summaries, store.boards), "colour-oracle")
    assert row["Colours accuracy"] == round(100 * summary["accuracy"], 2) == 100.0


def _golden_views(store: ResultStore) -> list[tuple[str, str, bool]]:
    """(golden key, category, style control) of every board FastChat computed that ours has."""
    board = store.boards[ARENA_TRACK].board
    views = [("full", "overall", False), ("full_style_control", "overall", True)]
    for category in sorted(board.categories):
        views += [(category, category, False), (f"{category}_style_control", category, True)]
    golden = json.loads(ARENA_GOLDEN.read_text(encoding="utf-8"))
    return [view for view in views if view[0] in golden]


def test_arena_board_matches_fastchat_on_every_view(store: ResultStore) -> None:
    views = _golden_views(store)
    assert len(views) >= 10 and ("ocr", "ocr", False) in views
    assert next(iter(_ratings(store, "overall", False))) == TOP
    for key, category, style_control in views:
        shown = _ratings(store, category, style_control)
        golden = {
            model: rating
            for model, rating in arena_golden(key)["rating"].items()
            if key.removesuffix("_style_control") not in SEPARABLE.get(model, ())
        }
        assert next(iter(shown)) == max(golden, key=golden.__getitem__), key
        assert {m: shown[m] for m in golden} == pytest.approx(golden, abs=0.1), key


def test_arena_category_and_style_toggle_change_the_table(store: ResultStore) -> None:
    overall = _ratings(store, "overall", False)
    assert _ratings(store, "ocr", False)[TOP] != overall[TOP]
    assert _ratings(store, "overall", True)[TOP] != overall[TOP]
    assert _ratings(store, "ocr", True)[TOP] != _ratings(store, "ocr", False)[TOP]
    board = store.boards[ARENA_TRACK].board
    assert not style_frame(board_view(board, "ocr", style_control=True)).empty


def test_arena_board_reaches_the_overview(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    record = store.boards[ARENA_TRACK]
    golden = arena_golden("full")
    assert set(record.board.models) <= set(frame["Model"])
    top = _row(frame, TOP)
    assert top["VisionArena rating"] == pytest.approx(golden["rating"][TOP], abs=0.1)
    low, high = golden["rating_q025"][TOP], golden["rating_q975"][TOP]
    rating = golden["rating"][TOP]
    # the interval is shown under the rating in its cell, as every track's number shows its own
    assert "VisionArena 95% CI" not in frame.columns
    cells = overview_cells(frame, store.summaries, store.boards).display
    shown = cells[list(frame["Model"]).index(TOP)][list(frame.columns).index("VisionArena rating")]
    number, reach, band = shown.split("\n")
    assert float(number) == top["VisionArena rating"] and band == "rank 1"
    assert reach == f"+{high - rating:.1f} / -{rating - low:.1f}"
    assert top["Run date"] == record.finished_at[:10] and top["Failed"] == 0
    assert record.source == "ratings battles battles_5k.jsonl" and record.n_rows == 4772


def test_board_chart_draws_the_table(store: ResultStore) -> None:
    from vlmscope.leaderboard.charts import rating_points

    view = board_view(store.boards[ARENA_TRACK].board, "ocr")
    figure = rating_points(ratings_of(view), "ocr")
    frame = rating_frame(view)
    assert list(figure.data[0].x) == list(frame["Model"])
    assert [round(y, 1) for y in figure.data[0].y] == list(frame["Rating"])


def test_the_newest_board_of_a_track_wins(store: ResultStore, tmp_path: Path) -> None:
    board = store.boards[ARENA_TRACK].board
    for name, finished in (("a_newer", "2026-02-01"), ("b_older", "2026-01-01")):
        battle = {"model_a": TOP, "model_b": "cogvlm-90b-04", "winner": "model_a"}
        result = BoardResult(ARENA_TRACK, board, [battle], name, "", finished, finished)
        write_board_result(tmp_path / name, result)
    newer = ResultStore(ResultsLocation.local(tmp_path))
    assert list(newer.boards) == [ARENA_TRACK] and newer.problems == []
    assert newer.boards[ARENA_TRACK].source == "a_newer"
    assert newer.tracks() == [ARENA_TRACK] and newer.sample_tracks() == []
