"""The overview table over a real MEGA-Bench oracle run and fabricated results."""

from __future__ import annotations

import math
from pathlib import Path

from tests.leaderboard.fabricate import HOSTILE_MODEL
from vlmscope.leaderboard.overview import headlines_for, overview_frame
from vlmscope.leaderboard.records import SummaryRecord, count_map, json_object, latest_per_run
from vlmscope.leaderboard.store import ResultStore


def _row(frame, model):  # noqa: ANN001, ANN202
    return frame[frame["Model"] == model].iloc[0]


def test_one_row_per_model_with_each_tracks_headline(store: ResultStore) -> None:
    frame = overview_frame(store.summaries)
    assert list(frame["Model"]) == [
        "oracle",
        HOSTILE_MODEL,
        "svqa-strong",
        "svqa-weak",
        "arena-a",
        "arena-b",
        "arena-c",
    ]
    oracle = _row(frame, "oracle")
    assert (oracle["MEGA-Bench overall"], oracle["MEGA-Bench Core"], oracle["MEGA-Bench Open"]) == (
        85.71,
        100.0,
        0.0,
    )
    assert math.isnan(oracle["SimpleVQA F"]) and math.isnan(oracle["VisionArena rating"])
    strong = _row(frame, "svqa-strong")
    assert (strong["SimpleVQA F"], strong["SimpleVQA CGA"]) == (73.68, 77.78)
    arena = _row(frame, "arena-c")
    assert (arena["VisionArena rating"], arena["VisionArena 95% CI"]) == (1045.0, "+30.0 / -25.0")


def test_run_columns_count_failures_and_flags(store: ResultStore) -> None:
    frame = overview_frame(store.summaries)
    oracle = _row(frame, "oracle")
    assert (oracle["Failed"], oracle["Unparseable"], oracle["Other flags"]) == (0, 0, 2)  # no judge
    hostile = _row(frame, HOSTILE_MODEL)
    assert (hostile["Failed"], hostile["Unparseable"], hostile["Other flags"]) == (1, 1, 0)
    assert hostile["Run date"] == "2026-01-02" and hostile["Config hash"] == "fab1e5"
    assert len(oracle["Config hash"]) == 16


def _record(track: str, model: str, scores: dict, finished: str = "2026-01-01") -> SummaryRecord:
    return SummaryRecord(model, track, 1, scores, {}, {}, "h", "", finished, Path("."))


def test_a_new_track_shows_its_first_numbers() -> None:
    records = [
        _record("newtrack", "m", {"note": "x", "acc": 0.5, "flag": True, "f1": 0.25, "n": 3})
    ]
    assert [h.label for h in headlines_for("newtrack", records)] == ["acc", "f1"]
    frame = overview_frame(records)
    assert list(frame.columns[:3]) == ["Model", "newtrack acc", "newtrack f1"]
    assert frame.iloc[0]["newtrack acc"] == 50.0


def test_latest_run_wins_and_bad_json_is_empty() -> None:
    old, new = _record("t", "m", {"a": 1}, "2026-01-01"), _record("t", "m", {"a": 2}, "2026-02-01")
    assert latest_per_run([new, old]) == [new]
    assert json_object("not json") == {} and json_object("[1]") == {} and json_object(None) == {}
    assert count_map('{"ok": 3, "bad": "x", "flag": true}') == {"ok": 3}
