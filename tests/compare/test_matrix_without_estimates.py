"""The pairwise matrix (three or more models) says why a pair has no number, as the two-model
table does, instead of leaving its cells and its label blank (a SimpleVQA run whose grades are
all unparseable has nothing graded for any pair)."""

from __future__ import annotations

from vlmscope.leaderboard.compare.pairs import PairComparison, PairedNumber, TrackComparison
from vlmscope.leaderboard.compare.render import matrix, text_report
from vlmscope.leaderboard.compare.run import CompareReport
from vlmscope.stats.intervals import Interval

NONE_GRADED = PairedNumber("CO", None, None, None, note="nothing graded for both")


def _pair(a: str, b: str, number: PairedNumber) -> PairComparison:
    return PairComparison("simplevqa", a, b, "6 questions", "paired bootstrap", (number,))


def test_pairs_without_an_estimate_say_why_in_both_cells() -> None:
    track = TrackComparison(
        "simplevqa", "SimpleVQA", ("x", "y", "z"),
        (_pair("x", "y", NONE_GRADED), _pair("x", "z", NONE_GRADED),
         _pair("y", "z", NONE_GRADED)),
    )  # fmt: skip
    label, rows = matrix(track)
    assert label == "no pair has a number with an interval (each cell says why)"
    why = "n/a (nothing graded for both)"
    assert rows == [["x", "", why, why], ["y", why, "", why], ["z", why, why, ""]]


def test_a_pair_with_an_estimate_keeps_its_number_and_label() -> None:
    graded = PairedNumber("CO", 0.5, 0.25, Interval(0.25, 0.1, 0.5, 0.2))
    track = TrackComparison(
        "simplevqa", "SimpleVQA", ("x", "y", "z"),
        (_pair("x", "y", graded), _pair("x", "z", NONE_GRADED), _pair("y", "z", NONE_GRADED)),
    )  # fmt: skip
    label, rows = matrix(track)
    assert label == "CO: row model - column model"
    assert rows[0][2] == "+25.00 [10.00, 50.00]" and rows[1][1] == "-25.00 [-50.00, -10.00]"
    assert rows[0][3] == "n/a (nothing graded for both)"
    assert "n/a (nothing graded for both)" in text_report(CompareReport(("x", "y", "z"), (track,)))
