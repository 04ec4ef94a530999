"""arena-hard v2's style-controlled board, to the digit it prints, on the official sweep's cases
(tests/ratings/official_sweep/ah_v2_style_printed_digits.json, see its README): verdict sets
where a float64 fit printed another last digit of a score or an interval bound than upstream's
float32 torch fit."""

from __future__ import annotations

import pytest

from tests.ratings.test_official_sweep import case
from tests.ratings.verdict_golden import ah_v2_ordered_records, golden
from vlmscope.ratings.boards.arena_hard_v2 import arena_hard_v2_style_board
from vlmscope.ratings.inputs.verdict_battles import scores_from_verdicts
from vlmscope.ratings.inputs.verdict_records import verdict_record_from_dict

CASES = "ah_v2_style_printed_digits.json"
KEYS = sorted(case(CASES)["cases"])


@pytest.mark.parametrize("key", KEYS)
def test_ah_v2_style_printed_digits(key: str) -> None:
    data = case(CASES)
    this = data["cases"][key]
    records = [verdict_record_from_dict(row) for row in this["records"]]
    scores = scores_from_verdicts(records, weight=this["weight"]).rows
    assert len(scores) == this["n_rows"]
    board = arena_hard_v2_style_board(scores, data["baseline"])
    printed = {
        m: {"score_pct": round(r.score * 100, 1), "ci": r.ci_text()}
        for m, r in board.win_rates.items()
    }
    assert printed == this["expected"]


def test_the_fit_ignores_the_callers_torch_threads() -> None:
    """torch's thread count moves the fit's last bits on the golden's 1116 rows (at 4 threads
    upstream prints another digit there); the board runs on one thread whatever the caller set,
    and leaves the caller's setting as it was."""
    torch = pytest.importorskip("torch")
    scores = scores_from_verdicts(ah_v2_ordered_records()).rows
    baseline = golden("arena_hard_v2_verdicts.json")["baseline"]
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = arena_hard_v2_style_board(scores, baseline, rounds=3)
        torch.set_num_threads(4)
        four = arena_hard_v2_style_board(scores, baseline, rounds=3)
        assert torch.get_num_threads() == 4
    finally:
        torch.set_num_threads(before)
    assert one.model_coef_median == four.model_coef_median
    assert one.style_coef_median == four.style_coef_median
