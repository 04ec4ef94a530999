"""Head-to-head forecasts read off a board's own fit: the refit reproduces the board it comes
from (point and interval of every model), the forecast is the logistic of the rating gap, a
clearly stronger model is forecast to win, two equal ones get an interval around 1/2, and a
board with no joint fit says why."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vlmscope.ratings.boards.battle_presets import BattleSettings, battle_board
from vlmscope.ratings.boards.board import BoardSettings
from vlmscope.ratings.boards.head_to_head import (
    NoForecast,
    battle_fit,
    head_to_head,
    verdict_fit,
    win_probability,
)
from vlmscope.ratings.boards.verdict_presets import VerdictSettings, verdict_board
from vlmscope.ratings.fits.bootstrap import BootstrapResult
from vlmscope.ratings.inputs.verdict_records import read_verdict_records

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "arena"


@pytest.mark.parametrize("style_control", [False, True])
def test_a_verdict_fit_reproduces_its_board(style_control: bool) -> None:
    records = read_verdict_records(GOLDEN / "judge_verdicts_small.jsonl")
    settings = VerdictSettings(baseline="gpt-4o-2024-05-13", style_control=style_control, rounds=20)
    board = verdict_board(records, settings)
    fit = verdict_fit(records, board.settings)
    lower, upper = np.percentile(fit.samples, [2.5, 97.5], axis=0)
    for i, model in enumerate(fit.models):
        entry = board.models[model]
        assert fit.rating[i] == pytest.approx(entry.rating, abs=1e-9)
        assert (lower[i], upper[i]) == pytest.approx((entry.lower, entry.upper), abs=1e-9)
    a, b = [m for m in board.models if m != "gpt-4o-2024-05-13"][:2]
    forecast = head_to_head(fit, a, b)
    gap = board.models[a].rating - board.models[b].rating
    assert forecast.probability.value == pytest.approx(1 / (1 + 10 ** (-gap / 400)))
    assert forecast.probability.lower <= forecast.probability.value <= forecast.probability.upper
    assert forecast.rating_difference.value == pytest.approx(gap)
    swapped = head_to_head(fit, b, a)
    assert swapped.probability.value == pytest.approx(1 - forecast.probability.value)
    assert swapped.probability.p_value == forecast.probability.p_value


def test_a_category_fit_reproduces_the_category_board() -> None:
    records = read_verdict_records(GOLDEN / "judge_verdicts_small.jsonl")
    settings = VerdictSettings(baseline="gpt-4o-2024-05-13", rounds=10)
    board = verdict_board(records, settings, categories=("Knowledge",))
    fit = verdict_fit(records, board.settings, category="Knowledge")
    for i, model in enumerate(fit.models):
        assert fit.rating[i] == pytest.approx(board.categories["Knowledge"].models[model].rating)


def test_a_battle_fit_reproduces_its_board() -> None:
    records = [json.loads(line) for line in (GOLDEN / "battles_5k.jsonl").open()]
    board = battle_board(records, BattleSettings(reference="fastchat", rounds=10))
    fit = battle_fit(records, board.settings)
    lower, upper = np.percentile(fit.samples, [2.5, 97.5], axis=0)
    for i, model in enumerate(fit.models):
        entry = board.models[model]
        assert fit.rating[i] == pytest.approx(entry.rating, abs=1e-6)
        assert (lower[i], upper[i]) == pytest.approx((entry.lower, entry.upper), abs=1e-6)


def _fit(strengths: list[float], n: int, seed: int) -> BootstrapResult:
    """A fit of n battles per pair among models of the given natural strengths."""
    from vlmscope.ratings.fits.bootstrap import bootstrap_bt
    from vlmscope.ratings.inputs.battles import Battles

    rng = np.random.default_rng(seed)
    a, b, outcome = [], [], []
    for i in range(len(strengths)):
        for j in range(i + 1, len(strengths)):
            p = 1 / (1 + 10 ** (strengths[j] - strengths[i]))
            wins = rng.random(n) < p
            a += [f"m{i}"] * n
            b += [f"m{j}"] * n
            outcome += wins.astype(float).tolist()
    battles = Battles.from_names(a, b, outcome)
    return bootstrap_bt(battles, rounds=200, rng=np.random.default_rng(seed), anchor=None)


def test_a_stronger_model_is_forecast_to_win() -> None:
    forecast = head_to_head(_fit([0.5, 0.0, 0.1], 300, seed=1), "m0", "m1")
    true = win_probability(400 * 0.5)
    assert 0.5 < forecast.probability.lower <= true <= forecast.probability.upper
    assert forecast.probability.p_value is not None and forecast.probability.p_value < 0.01


def test_equal_models_get_an_interval_around_a_half() -> None:
    covered = 0
    for seed in range(40):
        forecast = head_to_head(_fit([0.0, 0.0, 0.2], 100, seed=seed), "m0", "m1")
        covered += forecast.probability.lower <= 0.5 <= forecast.probability.upper
    assert covered >= 34


def test_boards_without_a_joint_fit_say_why() -> None:
    records = read_verdict_records(GOLDEN / "judge_verdicts_small.jsonl")
    with pytest.raises(NoForecast, match="fits each model alone"):
        verdict_fit(records, BoardSettings(reference="probench"))
    fit = _fit([0.0, 0.1], 10, seed=0)
    with pytest.raises(NoForecast, match="m7 is not on the board"):
        head_to_head(fit, "m0", "m7")
