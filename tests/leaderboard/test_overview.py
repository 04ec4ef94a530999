"""The overview table over real runs (MEGA-Bench, SimpleVQA, a plugin track without headlines), a
rating board of human battles and a hostile result."""

from __future__ import annotations

import math

from tests.leaderboard.fabricate import HOSTILE_MODEL, arena_models
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.records import count_map, json_object
from vlmscope.leaderboard.store import ResultStore
from vlmscope.leaderboard.track_info import ordered_tracks, track_title


def _row(frame, model):  # noqa: ANN001, ANN202
    return frame[frame["Model"] == model].iloc[0]


def test_one_row_per_model_with_each_tracks_headline(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    assert list(frame["Model"]) == [
        "oracle",
        HOSTILE_MODEL,
        "svqa-strong",
        "svqa-weak",
        "colour-oracle",
        *arena_models(),
    ]
    oracle = _row(frame, "oracle")
    assert (oracle["MEGA-Bench overall"], oracle["MEGA-Bench Core"], oracle["MEGA-Bench Open"]) == (
        85.71,
        100.0,
        0.0,
    )
    assert math.isnan(oracle["SimpleVQA F"]) and math.isnan(oracle["visionarena rating"])
    weak = _row(frame, "svqa-weak")
    assert (weak["SimpleVQA F"], weak["SimpleVQA CGA"]) == (40.0, 50.0)
    anchor = _row(frame, "mixtral-8x7b-instruct-v0.1")  # FastChat pins it at 1114
    assert (anchor["visionarena rating"], anchor["visionarena 95% CI"]) == (1114.0, "+0.0 / -0.0")


def test_columns_follow_the_registered_tracks_then_the_others(store: ResultStore) -> None:
    columns = list(overview_frame(store.summaries, store.boards).columns)
    firsts = [columns.index(c) for c in ("MEGA-Bench overall", "SimpleVQA F", "Colours accuracy")]
    assert firsts == sorted(firsts) and columns.index("visionarena rating") > firsts[-1]
    assert ordered_tracks(["zeta", "visionarena", "simplevqa", "megabench"]) == [
        "megabench",
        "simplevqa",
        "visionarena",
        "zeta",
    ]
    assert track_title("megabench") == "MEGA-Bench" and track_title("visionarena") == "visionarena"
    assert track_title("colours") == "Colours"  # the plugin's registration names it


def test_run_columns_count_failures_and_flags(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    oracle = _row(frame, "oracle")
    assert (oracle["Failed"], oracle["Unparseable"], oracle["Other flags"]) == (0, 0, 2)  # no judge
    hostile = _row(frame, HOSTILE_MODEL)
    assert (hostile["Failed"], hostile["Unparseable"], hostile["Other flags"]) == (1, 1, 0)
    assert hostile["Run date"] == "2026-01-02" and hostile["Config hash"] == "fab1e5"
    assert len(oracle["Config hash"]) == 16
    arena = _row(frame, "glm-4v-72b-07")  # rated on a board only: the board's date
    assert arena["Run date"] == store.boards["visionarena"].finished_at[:10]
    assert (arena["Failed"], arena["Unparseable"], arena["Other flags"]) == (0, 0, 0)


def test_no_results_give_an_empty_overview() -> None:
    frame = overview_frame([], {})
    assert frame.empty and list(frame.columns)[0] == "Model"


def test_bad_json_columns_read_as_empty() -> None:
    assert json_object("not json") == {} and json_object("[1]") == {} and json_object(None) == {}
    assert count_map('{"ok": 3, "bad": "x", "flag": true}') == {"ok": 3}
