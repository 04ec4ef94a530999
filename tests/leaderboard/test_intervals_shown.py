"""No headline number without its interval: every number on the overview shows its 95% interval
or is marked (no CI) with the reason listed, each track shows rank bands as the boards rank, and
the MEGA-Bench and SimpleVQA tables rank by band."""

from __future__ import annotations

import pandas as pd

from tests.leaderboard.fabricate import HOSTILE_MODEL
from vlmscope.leaderboard import megabench_view as mb
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.headline_intervals import (
    NO_CI,
    OLD_SUMMARY,
    Bounds,
    bounds_at,
    rank_bands,
    reach_text,
)
from vlmscope.leaderboard.overview import headline_columns, overview_frame
from vlmscope.leaderboard.overview_cells import overview_cells
from vlmscope.leaderboard.records import by_model
from vlmscope.leaderboard.result_store import ResultStore


def test_every_headline_number_has_its_interval_or_a_reason(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    cells = overview_cells(frame, store.summaries, store.boards)
    heads = headline_columns(store.summaries, store.boards)
    assert heads and len(cells.display) == len(frame)
    marked: list[tuple[str, str]] = []
    for r, (_, row) in enumerate(frame.iterrows()):
        for c, column in enumerate(frame.columns):
            shown = cells.display[r][c]
            if column not in heads or pd.isna(row[column]):
                continue
            number, *rest = shown.split("\n")
            assert float(number) == row[column]
            assert rest and (rest[0] == NO_CI or rest[0].startswith("+")), (column, shown)
            if rest[0] == NO_CI:
                marked.append((column, str(row["Model"])))
    assert marked, "the hostile and colour results have no interval"
    for column, model in marked:
        assert any(line.startswith(f"{column}: ") and model in line for line in cells.no_interval)
    assert f"MEGA-Bench overall: {HOSTILE_MODEL} ({OLD_SUMMARY})" in cells.no_interval
    assert any(
        line.startswith("Colours accuracy: ") and "the track reports no interval" in line
        for line in cells.no_interval
    )


def test_each_track_shows_rank_bands(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    cells = overview_cells(frame, store.summaries, store.boards)
    assert cells.bands["SimpleVQA F"] == {"svqa-strong": 1, "svqa-weak": 2}
    assert cells.bands["MEGA-Bench overall"] == {"oracle": 1}  # the hostile one has no interval
    arena = cells.bands["VisionArena rating"]
    board = store.boards["visionarena"].board
    assert arena == {m: e.rank for m, e in board.models.items()} and len(set(arena.values())) > 1
    row = frame.index[frame["Model"] == "svqa-weak"][0]
    column = list(frame.columns).index("SimpleVQA F")
    assert cells.display[row][column] == "40\n+40.00 / -40.00\nrank 2"


def test_bands_are_shared_by_overlapping_intervals() -> None:
    bands = rank_bands(
        {
            "a": Bounds(0.70, 0.80),
            "b": Bounds(0.65, 0.75),  # overlaps a: tied with it
            "c": Bounds(0.40, 0.60),  # below both
            "d": Bounds(0.55, 0.68),  # overlaps b and c, below a
        }
    )
    assert bands == {"a": 1, "b": 1, "c": 3, "d": 2}
    assert bounds_at({"x": [0.1, 0.2]}, "x") == Bounds(0.1, 0.2)
    assert bounds_at({"x": {"lower": 1, "upper": 3}}, "x") == Bounds(1.0, 3.0)
    assert bounds_at({"x": [0.1]}, "x") is None and bounds_at({}, "x", "y") is None
    assert reach_text(0.5, Bounds(0.45, 0.6), 100) == "+10.00 / -5.00"


def test_the_megabench_and_simplevqa_tables_rank_by_band(store: ResultStore) -> None:
    headline = mb.headline_frame(by_model(store.summaries, "megabench"))
    assert list(headline.columns[:4]) == ["Rank", "Model", "Overall", "Overall 95% CI"]
    oracle = headline.set_index("Model").loc["oracle"]
    low, high = (float(x) for x in oracle["Overall 95% CI"].split(" - "))
    assert oracle["Rank"] == 1 and low <= oracle["Overall"] <= high
    assert headline.set_index("Model").loc[HOSTILE_MODEL, "Overall 95% CI"] == NO_CI
    overall = svqa.factuality_frame(by_model(store.summaries, "simplevqa"), "Overall")
    assert list(overall["Model"]) == ["svqa-strong", "svqa-weak"]
    assert list(overall["F rank"]) == [1, 2]
