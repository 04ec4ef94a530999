"""Every entry of probench_show_result.json, arena_hard_v01_verdicts.json and
arena_hard_v2_verdicts.json, reproduced from judge_verdicts_small.jsonl."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from tests.ratings.verdict_golden import (
    BASELINE,
    GAME_MODES,
    ah_v2_ordered_records,
    golden,
    verdict_records,
)
from vlmscope.ratings.boards.arena_hard_v2 import (
    ArenaHardV2Board,
    arena_hard_v2_board,
    arena_hard_v2_style_board,
)
from vlmscope.ratings.boards.judged_boards import (
    EloBoard,
    ProBenchModelResult,
    arena_hard_v01_board,
    probench_board,
)
from vlmscope.ratings.inputs.verdict_battles import battles_from_verdicts, scores_from_verdicts

RATING_TOL = 0.1  # Elo points, point estimates
QUANTILE_TOL = 0.2  # Elo points, bootstrap percentiles (same random stream)
WIN_RATE_TOL = 0.05  # percentage points
COEF_TOL = 2e-4
V2_COEF_TOL = 2e-4  # float32 fits: torch builds differ in the last bits, not in printed digits

PROBENCH = golden("probench_show_result.json")
AH_V01 = golden("arena_hard_v01_verdicts.json")
AH_V2 = golden("arena_hard_v2_verdicts.json")


@cache
def probench(mode: str, model: str) -> ProBenchModelResult:
    return probench_board(verdict_records(), model, BASELINE, first_game_only=mode != "both_games")


@cache
def ah_v01(mode: str, style_control: bool) -> EloBoard:
    judged = battles_from_verdicts(verdict_records(), first_game_only=mode != "both_games")
    return arena_hard_v01_board(judged.rows, BASELINE, style_control=style_control)


@cache
def ah_v2(style_control: bool) -> ArenaHardV2Board:
    scores = scores_from_verdicts(ah_v2_ordered_records()).rows
    board = arena_hard_v2_style_board if style_control else arena_hard_v2_board
    return board(scores, AH_V2["baseline"])


PROBENCH_CASES = [(mode, model) for mode in GAME_MODES for model in PROBENCH[mode]]


@pytest.mark.parametrize(("mode", "model"), PROBENCH_CASES)
def test_probench_show_result(mode: str, model: str) -> None:
    expected = PROBENCH[mode][model]
    result = probench(mode, model)
    assert result.board.n_battle_rows == expected["n_battle_rows"]
    assert result.board.winner_counts == expected["winner_counts"]
    assert result.avg_tokens == expected["avg_tokens"]
    assert set(result.score_int) == set(expected["ratings"]) == {BASELINE, model}
    for name, want in expected["ratings"].items():
        assert result.score_int[name] == want["score_int"]
        assert result.lower_int[name] == want["lower_int"]
        assert result.upper_int[name] == want["upper_int"]
        assert result.board.score[name] == pytest.approx(want["score_float"], abs=RATING_TOL)
        assert result.board.lower[name] == pytest.approx(want["lower_float"], abs=QUANTILE_TOL)
        assert result.board.upper[name] == pytest.approx(want["upper_float"], abs=QUANTILE_TOL)
        assert result.win_rate_pct[name] == pytest.approx(want["win_rate_pct"], abs=WIN_RATE_TOL)
    assert result.board.style_coef is not None
    coefs = list(result.board.style_coef.values())
    np.testing.assert_allclose(coefs, expected["style_coef"], atol=COEF_TOL, rtol=0)


def test_probench_covers_every_golden_model() -> None:
    assert len(PROBENCH_CASES) == 8


@pytest.mark.parametrize("mode", GAME_MODES)
@pytest.mark.parametrize("style_control", [False, True], ids=["no_style", "style_control"])
def test_arena_hard_v01(mode: str, style_control: bool) -> None:
    expected = AH_V01[mode]["style_control" if style_control else "no_style"]
    board = ah_v01(mode, style_control)
    assert board.n_battle_rows == AH_V01[mode]["n_battle_rows"]
    assert set(board.score) == set(expected["elo"])
    for model, want in expected["elo"].items():
        assert board.score[model] == pytest.approx(want["score"], abs=RATING_TOL)
        assert board.lower[model] == pytest.approx(want["lower"], abs=QUANTILE_TOL)
        assert board.upper[model] == pytest.approx(want["upper"], abs=QUANTILE_TOL)
    win_rates = board.win_rate_pct()
    for model, want in expected["win_rate_pct"].items():
        for column in ("score", "lower", "upper"):
            assert win_rates[model][column] == pytest.approx(want[column], abs=WIN_RATE_TOL)
    if style_control:
        assert board.style_coef is not None
        coefs = list(board.style_coef.values())
        np.testing.assert_allclose(coefs, expected["style_coef"], atol=COEF_TOL, rtol=0)
    else:
        assert board.style_coef is None


@pytest.mark.parametrize("key", ["no_style", "style_length+markdown"])
def test_arena_hard_v2(key: str) -> None:
    expected = AH_V2[key]
    board = ah_v2(style_control=key != "no_style")
    assert board.n_rows == AH_V2["n_battle_rows"]
    models = sorted(m for m in expected if not m.endswith("_median"))
    assert sorted(board.win_rates) == models
    for model in models:
        rate, want = board.win_rates[model], expected[model]
        # the printed digits (with style control too: ours fits in torch float32 as upstream)
        assert round(rate.score * 100, 1) == want["score_pct"], model
        assert rate.ci_text() == want["ci"], model
    if key == "no_style":
        assert board.style_coef_median is None
        return
    assert board.model_coef_median is not None and board.style_coef_median is not None
    np.testing.assert_allclose(
        [board.model_coef_median[m] for m in models],
        expected["model_coef_median"],
        atol=V2_COEF_TOL,
        rtol=0,
    )
    np.testing.assert_allclose(
        list(board.style_coef_median.values()),
        expected["style_coef_median"],
        atol=V2_COEF_TOL,
        rtol=0,
    )


def test_arena_hard_v2_no_style_is_exact() -> None:
    # Same random stream and plain means: the printed values agree to the last digit.
    board = ah_v2(style_control=False)
    for model, rate in board.win_rates.items():
        assert round(rate.score * 100, 1) == AH_V2["no_style"][model]["score_pct"]
        assert rate.ci_text() == AH_V2["no_style"][model]["ci"]


def test_probench_per_model_fit_differs_from_joint_fit() -> None:
    # Why both scorers exist: the slice changes the number (spec 7.5).
    joint = ah_v01("both_games", True).score["idefics-2b-02"]
    alone = probench("both_games", "idefics-2b-02").board.score["idefics-2b-02"]
    assert abs(joint - alone) > 1.0
