"""Cases from the official code on inputs the goldens do not cover (tests/ratings/official_sweep,
see its README), through the same calls as the golden tests."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.ratings.test_judged_goldens import QUANTILE_TOL, RATING_TOL, WIN_RATE_TOL
from vlmscope.ratings import report
from vlmscope.ratings.boards.arena_hard_v2 import arena_hard_v2_board
from vlmscope.ratings.boards.judged_boards import arena_hard_v01_board, probench_board
from vlmscope.ratings.fits.fit_checks import FitError
from vlmscope.ratings.inputs.verdict_battles import battles_from_verdicts, scores_from_verdicts
from vlmscope.ratings.inputs.verdict_records import verdict_record_from_dict

CASES = Path(__file__).resolve().parent / "official_sweep"
# The FastChat golden tests' tolerances: exact solver, and FastChat's own optimiser replayed.
SOLVER_TOL = {"newton": (0.1, 0.2, 2e-4), "fastchat": (1e-6, 1e-6, 1e-9)}


@cache
def case(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CASES / name).read_text(encoding="utf-8"))
    return loaded


def near(got: float, want: float | None, tol: float) -> bool:
    """`want` None is the reference's NaN (stored as null)."""
    return math.isnan(got) if want is None else abs(got - want) <= tol


@pytest.mark.parametrize("solver", sorted(SOLVER_TOL))
def test_fastchat_style_counts_past_int32(solver: str) -> None:
    """FastChat keeps style counts in int32: token and list counts from 2**31 wrap around."""
    data = case("fastchat_int32_style_counts.json")
    want = data["expected"]
    point_tol, quantile_tol, coef_tol = SOLVER_TOL[solver]
    board = report(
        data["records"],
        num_bootstrap=data["num_bootstrap"],
        style_control=data["style_control"],
        solver=solver,  # type: ignore[arg-type]
    ).to_dict()
    assert board["n_battles"] == want["n_battles"]
    assert board["num_battles"] == want["num_battles"]
    for column, tol in (
        ("rating", point_tol),
        ("rating_q025", quantile_tol),
        ("rating_q975", quantile_tol),
    ):
        for model, value in want[column].items():
            assert board[column][model] == pytest.approx(value, abs=tol), (column, model)
    assert board["style_coef_final"] == pytest.approx(want["style_coef_final"], abs=coef_tol)


AH01_KEYS = sorted(case("ah01_model_missing_from_rounds.json")["expected"])


@pytest.mark.parametrize("key", AH01_KEYS)
def test_ah01_model_missing_from_bootstrap_rounds(key: str) -> None:
    """A model judged once is missing from some bootstrap samples: upstream its percentiles are
    NaN, and in the style bootstrap the present models take the ratings of the first columns."""
    data = case("ah01_model_missing_from_rounds.json")
    want = data["expected"][key]
    first_game_only = "first_game_only=True" in key
    style_control = "style_control=True" in key
    records = [verdict_record_from_dict(row) for row in data["records"]]
    judged = battles_from_verdicts(records, first_game_only=first_game_only)
    board = arena_hard_v01_board(
        judged.rows, data["baseline"], style_control=style_control, rounds=data["rounds"]
    )
    assert board.n_battle_rows == want["n"]
    assert set(board.score) == set(want["score"])
    separable = {m for m, v in want["score"].items() if abs(v - 1000) > 2000}
    for model in want["score"]:
        if model in separable:  # lost every game: the unpenalised MLE is at infinity
            continue
        assert board.score[model] == pytest.approx(want["score"][model], abs=RATING_TOL)
    for column, values in (("lower", board.lower), ("upper", board.upper)):
        for model, value in want[column].items():
            if model in separable and value is not None:
                continue
            assert near(values[model], value, QUANTILE_TOL), (column, model)
    win_rates = board.win_rate_pct()
    for column, values in want["wr"].items():  # get_win_rate_column: a NaN rating gives 50.0
        for model, value in values.items():
            if model in separable and column == "score":
                continue
            assert win_rates[model][column] == pytest.approx(value, abs=WIN_RATE_TOL)
    missing = [m for m, v in want["lower"].items() if v is None]
    assert missing, "the case must leave a model out of some rounds"
    assert all(want["wr"][column][m] == 50.0 for m in missing for column in ("lower", "upper"))
    finite = arena_hard_v01_board(  # the product boards' choice: every round rates every model
        judged.rows,
        data["baseline"],
        style_control=style_control,
        rounds=data["rounds"],
        upstream_missing=False,
    )
    assert all(math.isfinite(finite.lower[m]) and math.isfinite(finite.upper[m]) for m in missing)


V2_KEYS = sorted(case("ah_v2_printed_digits.json")["cases"])


@pytest.mark.parametrize("key", V2_KEYS)
def test_ah_v2_no_style_printed_digits(key: str) -> None:
    """Scores and intervals as arena-hard v2 prints them, to the last digit: pandas' group mean
    and quantile, then its rounding (these cases sit on a rounding boundary), under the names it
    prints (a model path keeps its last part)."""
    data = case("ah_v2_printed_digits.json")
    want = data["cases"][key]["expected"]
    records = [verdict_record_from_dict(row) for row in data["cases"][key]["records"]]
    board = arena_hard_v2_board(scores_from_verdicts(records).rows, data["baseline"])
    assert sorted(board.win_rates) == sorted(want)
    for model, rate in board.win_rates.items():
        assert round(rate.score * 100, 1) == want[model]["score_pct"], model
        assert rate.ci_text() == want[model]["ci"], model


ONE_CLASS_KEYS = sorted(case("ah01_probench_one_class.json")["cases"])


@pytest.mark.parametrize("key", ONE_CLASS_KEYS)
def test_one_class_stops_as_the_reference_does(key: str) -> None:
    """Rows all won by the same side (in the whole fit or in one bootstrap round): upstream's
    sklearn fit stops with an error, so the reproduction raises a named error, not numbers the
    reference never printed; boards that keep finite numbers still rate the same rows."""
    data = case("ah01_probench_one_class.json")
    want = data["cases"][key]
    assert "2 classes" in want["official_error"]
    records = [verdict_record_from_dict(row) for row in want["records"]]
    first_game_only, style_control = want["first_game_only"], want["style_control"]
    stage = "bootstrap round" if key.endswith("bootstrap_round") else "fit:"
    with pytest.raises(FitError, match=f"{stage}.*one class only"):
        if key.startswith("probench"):
            probench_board(
                records,
                data["model"],
                data["baseline"],
                data["weight"],
                first_game_only,
                data["rounds"],
            )
        else:
            judged = battles_from_verdicts(
                records, weight=data["weight"], first_game_only=first_game_only
            )
            arena_hard_v01_board(
                judged.rows, data["baseline"], style_control=style_control, rounds=data["rounds"]
            )
    judged = battles_from_verdicts(records, weight=data["weight"], first_game_only=first_game_only)
    finite = arena_hard_v01_board(
        judged.rows,
        data["baseline"],
        style_control=style_control,
        rounds=data["rounds"],
        upstream_missing=False,
    )
    assert all(math.isfinite(v) for v in (*finite.lower.values(), *finite.upper.values()))


@pytest.mark.parametrize("key", sorted(case("fastchat_no_battles_left.json")["cases"]))
def test_fastchat_filters_that_keep_no_battle(key: str) -> None:
    """FastChat fails inside its bootstrap's multinomial draw when the filters keep nothing;
    the board says why instead."""
    data = case("fastchat_no_battles_left.json")
    want = data["cases"][key]
    assert want["official_error"].startswith("ValueError")
    with pytest.raises(ValueError, match="no battles left to rate"):
        report(data["records"], num_bootstrap=data["num_bootstrap"], **want["kwargs"])
