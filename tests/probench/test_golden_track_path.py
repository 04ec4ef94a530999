"""The ProBench goldens through the track's own path: judged samples in, tables out.

Each golden verdict record becomes what the track's `score` leaves in a details row (both games'
judge replies and both answers' style metadata); the track's report must then print exactly what
ProBench's `show_result.py` printed for each model (`probench_show_result.json`), and its joint
board must be arena-hard-auto v0.1's style-controlled fit of all models
(`arena_hard_v01_verdicts.json`), which is ProBench's math on every model at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import pytest

from tests.ratings.verdict_golden import (
    BASELINE,
    GAME_MODES,
    golden,
    judged_sample,
    verdict_records,
)
from vlmscope.ratings.boards.verdict_presets import PROBENCH, VerdictSettings
from vlmscope.tracks.base import Scored
from vlmscope.tracks.probench.report import ProBenchReport, records_of
from vlmscope.tracks.probench.tables import Subsets, joint_board

SHOW_RESULT = golden("probench_show_result.json")
AH_V01 = golden("arena_hard_v01_verdicts.json")


def _settings(mode: str) -> VerdictSettings:
    return VerdictSettings(
        reference=PROBENCH,
        baseline=BASELINE,
        style_control=True,
        first_game_only=mode == "first_game_only",
    )


@cache
def _subsets() -> Subsets:
    return Subsets.of({r.uid: "singleround" for r in verdict_records()}, {})


def _scored_of(model: str) -> Sequence[Scored]:
    return [
        judged_sample(r, "probench_judge_singleround v1", "singleround", with_model=True)
        for r in verdict_records()
        if r.model == model
    ]


@pytest.mark.parametrize(
    ("mode", "model"), [(mode, model) for mode in GAME_MODES for model in SHOW_RESULT[mode]]
)
def test_report_prints_probench_show_result(mode: str, model: str) -> None:
    report = ProBenchReport.of(
        _scored_of(model),
        _settings(mode),
        _subsets(),
        with_breakdowns=False,
        token_counter="given",
        baseline_source="rows",
    )
    expected = SHOW_RESULT[mode][model]
    entry = report.summary()["tracks"]["singleround"]
    want = expected["ratings"][model]
    assert (entry["score"], entry["lower"], entry["upper"]) == (
        want["score_int"],
        want["lower_int"],
        want["upper_int"],
    )
    assert entry["win_rate"] == pytest.approx(want["win_rate_pct"], abs=0.005)
    assert entry["avg_tokens"] == expected["avg_tokens"][model]
    assert entry["baseline_avg_tokens"] == expected["avg_tokens"][BASELINE]
    assert entry["battle_rows"] == expected["n_battle_rows"]
    assert entry["winner_counts"] == expected["winner_counts"]
    assert entry["style_coefficients"] == pytest.approx(expected["style_coef"], abs=2e-4)
    unparseable = sum(
        label is None
        for row_model, _, *labels in SHOW_RESULT["parsed_scores"]
        if row_model == model
        for label in labels
    )
    assert report.summary()["unparseable_games"] == unparseable > 0
    assert report.summary()["judged_prompts"] == 100


@pytest.mark.parametrize("mode", GAME_MODES)
def test_joint_board_is_one_style_controlled_fit_of_all_models(mode: str) -> None:
    records = [
        record
        for model in sorted({r.model for r in verdict_records()})
        for record in records_of(model, _scored_of(model))
    ]
    # the golden fit read the records in file order; the track sorts by model name, which must
    # give the same point ratings (bootstraps resample by position, so only points are compared
    # here; file order is compared below)
    board = joint_board(records, _settings(mode), _subsets(), with_breakdowns=False)
    expected = AH_V01[mode]["style_control"]["elo"]
    for name, want in expected.items():
        assert board.models[name].rating == pytest.approx(want["score"], abs=0.1)
    in_file_order = joint_board(
        list(verdict_records()), _settings(mode), _subsets(), with_breakdowns=False
    )
    for name, want in expected.items():
        got = in_file_order.models[name]
        assert (got.rating, got.lower, got.upper) == pytest.approx(
            (want["score"], want["lower"], want["upper"]), abs=0.2
        )
    assert set(board.categories) == {"singleround"}
