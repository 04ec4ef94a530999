"""The demo configs: the SimpleVQA demo builds its LLM-judged track; the all-tracks demo grades
SimpleVQA offline, so the oracle scores F = 1 and the run table says n/a where nothing is graded."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.demo_run import DemoRun
from vlmscope.config import load_config
from vlmscope.runner.table import format_table, headline, headline_keys
from vlmscope.tracks.registry import build_track
from vlmscope.tracks.simplevqa.match_grader import PROTOCOL

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
DEMO = CONFIGS / "simplevqa_demo.yaml"
ALL_TRACKS_DEMO = CONFIGS / "demo.yaml"


def test_demo_config_builds_the_track() -> None:
    config = load_config(DEMO)
    assert [m.backend for m in config.models] == ["hf", "oracle"]
    (track_config,) = config.tracks
    assert track_config.judge is not None and track_config.judge.backend == "openai"
    assert track_config.judge.base_url.startswith("http://127.0.0.1:")
    assert track_config.options["grader"] == "llm"  # this demo keeps the paper's LLM path
    track = build_track(track_config, limit=None)
    assert len(track.samples(config.models[1])) == 12  # 6 rows, each with its atomic question


def test_all_tracks_demo_grades_simplevqa_offline_without_a_judge() -> None:
    config = load_config(ALL_TRACKS_DEMO)
    (track_config,) = [t for t in config.tracks if t.name == "simplevqa"]
    assert track_config.judge is None and track_config.options["grader"] == "offline_match"
    build_track(track_config, limit=None)


@pytest.mark.timeout(600)
def test_all_tracks_demo_gives_the_oracle_full_marks_on_simplevqa(demo_run: DemoRun) -> None:
    report = demo_run.report
    by_model = {t.model: t.summary for t in report.tracks if t.track == "simplevqa"}
    oracle, tiny = by_model["oracle"], by_model["tiny-llava"]
    assert oracle["F"] == 1.0 and oracle["CO"] == 1.0 and oracle["n_graded"] == 6
    assert oracle["grader"]["protocol"] == PROTOCOL and "judge" not in oracle
    assert tiny["n_graded"] == 6 and tiny["outcomes"] == {"ok": 6}
    assert tiny["F"] is not None and tiny["F"] < 1.0  # random weights do not read images
    table = format_table(report)
    oracle_line = next(
        line for line in table.splitlines() if line.split()[:2] == ["oracle", "simplevqa"]
    )
    assert "F=1 (95% 1-1)  CO=1  CGA=1 (95% 1-1)" in oracle_line  # as the Space, with CIs
    # ... and the Space shows it: F = 100 for the oracle, with the grading named
    from vlmscope.leaderboard.load import ResultsLocation
    from vlmscope.leaderboard.overview import overview_frame
    from vlmscope.leaderboard.records import by_model as records_by_model
    from vlmscope.leaderboard.result_store import ResultStore
    from vlmscope.leaderboard.simplevqa_view import grading_note

    store = ResultStore(ResultsLocation.local(demo_run.out))
    overview = overview_frame(store.summaries, store.boards).set_index("Model")
    assert overview.loc["oracle", "SimpleVQA F"] == 100.0
    assert "oracle: offline_match" in grading_note(records_by_model(store.summaries, "simplevqa"))


def test_run_table_shows_a_missing_headline_as_n_a() -> None:
    summary = {"F": None, "CO": None, "CGA": None, "NA": None, "n_items": 6, "n_graded": 0}
    assert headline_keys("simplevqa") == {"F", "CGA"}
    assert headline(summary, keys=headline_keys("simplevqa")) == (
        "F=n/a  CGA=n/a  n_items=6  n_graded=0"
    )
    assert headline({"F": 0.5, "CO": 0.25, "note": None}, keys={"F"}) == "F=0.5  CO=0.25"
    assert headline_keys("no-such-track") == set()
