"""ProBench truncates ratings to ints: a rating that is a tie with the baseline up to the last bit
prints 1113 or 1114 depending on that bit, so the fit must reproduce scikit-learn's to the bit
(tests/ratings/official_sweep/probench_printed_ints.json, see the folder's README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vlmscope.ratings.boards.judged_boards import probench_board
from vlmscope.ratings.inputs.verdict_records import verdict_record_from_dict

DATA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "official_sweep" / "probench_printed_ints.json").read_text(
        encoding="utf-8"
    )
)


@pytest.mark.parametrize("key", sorted(DATA["cases"]))
def test_probench_prints_the_reference_ints_and_bits(key: str) -> None:
    want = DATA["cases"][key]
    records = [verdict_record_from_dict(row) for row in want["records"]]
    result = probench_board(
        records,
        want["model"],
        DATA["baseline"],
        weight=want["weight"],
        first_game_only=want["first_game_only"],
        rounds=DATA["rounds"],
    )
    ints = {
        m: [result.score_int[m], result.lower_int[m], result.upper_int[m]] for m in result.score_int
    }
    assert ints == want["expected"]["ints"]
    board = result.board
    for column, got in (("score", board.score), ("lower", board.lower), ("upper", board.upper)):
        assert {m: float(v) for m, v in got.items()} == want["expected"][column], column


def test_the_tie_case_sits_one_bit_below_the_baseline() -> None:
    """The case that needs bit equality: upstream's rating is 1114 less one ulp, printed 1113."""
    tie = DATA["cases"]["tiny_931_vm41-0_first=False"]["expected"]
    assert tie["score"]["vm41-0"] == 1113.9999999999998
    assert tie["ints"]["vm41-0"][0] == 1113
