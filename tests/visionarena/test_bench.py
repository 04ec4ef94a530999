"""VisionArena-Bench: the arena-hard v0.1 goldens through the track's own path, and a run."""

from __future__ import annotations

from functools import cache

import pytest

from tests.ratings.verdict_golden import BASELINE, golden, judged_sample, verdict_records
from vlmscope.config import TrackConfig, parse_config
from vlmscope.ratings.board import RatingBoard
from vlmscope.runner.loop import run
from vlmscope.tracks.base import ModelResult, SummaryReport
from vlmscope.tracks.visionarena.bench import VisionArenaBenchTrack
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, read_bench_rows

AH_V01 = golden("arena_hard_v01_verdicts.json")["both_games"]


@cache
def golden_board() -> RatingBoard:
    config = TrackConfig(
        name="visionarena_bench",
        judge={"backend": "coin"},
        options={"baseline": BASELINE, "style_control": True},
    )
    track = VisionArenaBenchTrack(config, limit=None)
    results = {}
    for model in dict.fromkeys(r.model for r in verdict_records()):
        scored = [
            judged_sample(r, "visionarena_bench_judge v1", None)
            for r in verdict_records()
            if r.model == model
        ]
        results[model] = ModelResult(model, [], [], scored, SummaryReport({}))
    joint = track.aggregate(results)
    assert joint is not None
    return joint.board


@pytest.mark.parametrize("style", ["no_style", "style_control"])
def test_verdicts_to_scores_reproduce_arena_hard_v01(style: str) -> None:
    board = golden_board()
    view = board if style == "no_style" else board.style_control
    assert view is not None
    expected = AH_V01[style]
    for name, want in expected["elo"].items():
        got = view.models[name]
        assert got.rating == pytest.approx(want["score"], abs=0.1)
        # the track fits models in name order, the golden run in file order: the bootstrap
        # resamples rows by position, so its intervals agree statistically, not to the digit
        assert got.lower == pytest.approx(want["lower"], abs=25)
        assert got.upper == pytest.approx(want["upper"], abs=25)
        assert got.lower <= got.rating <= got.upper
    for name, want in expected["win_rate_pct"].items():
        assert view.models[name].win_rate == pytest.approx(want["score"], abs=0.05)


def test_a_bench_run_with_an_anchor_of_the_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = parse_config(
        {
            "output_dir": str(tmp_path / "results"),
            "models": [
                {"backend": "coin", "name": "gpt-4-turbo", "reply": "anchor says {label}"},
                {"backend": "coin", "name": "bot", "reply": "a longer answer: {label} {label}"},
            ],
            "tracks": [
                {
                    "name": "visionarena_bench",
                    "judge": {"backend": "coin", "name": "coin-judge"},
                    "options": {"bootstrap_rounds": 10},
                }
            ],
        }
    )
    report = run(config)
    by_model = {t.model: t.summary for t in report.tracks}
    rows = read_bench_rows(SAMPLE_DIR / "bench")
    assert by_model["bot"]["judged_prompts"] == len(rows)
    assert by_model["gpt-4-turbo"]["role"] == "baseline"
    (board,) = report.boards
    assert board.error is None and board.models == 2
