"""A headline number reads the same on every page that shows it: the overview, the track's own
page and `vlmscope compare` round a 0-1 rate to the same percent digits, and a track page
writes an interval's bounds with those digits too."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlmscope.leaderboard import megabench_headline_ci
from vlmscope.leaderboard import simplevqa_view as svqa
from vlmscope.leaderboard.compare.pairs import POINTS, PairedNumber
from vlmscope.leaderboard.compare.render import estimate_text, scaled
from vlmscope.leaderboard.headline_intervals import Bounds, reach_text
from vlmscope.leaderboard.judge_view import consistency_frame
from vlmscope.leaderboard.ledger_view import cost_frame
from vlmscope.leaderboard.overview import overview_frame, samples_text
from vlmscope.leaderboard.overview_cells import overview_cells
from vlmscope.leaderboard.probench_view import ci_offsets, official_frame
from vlmscope.leaderboard.rating_view import OVERALL, ci_text, rating_frame, win_rate_ci
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import percent
from vlmscope.leaderboard.visionarena_bench_view import bench_frame
from vlmscope.ratings.boards.board import BoardSettings, ModelRating, RatingBoard
from vlmscope.runner.generate import TrackReport
from vlmscope.runner.ledger_table import money
from vlmscope.runner.loop import RunReport
from vlmscope.runner.table import (
    format_table,
    headline,
    headline_intervals,
    headline_keys,
    rating_text,
    registered_headlines,
)
from vlmscope.shown_numbers import offsets_text, percent_text
from vlmscope.stats.intervals import Interval
from vlmscope.tracks.probench.report import TABLE_FILE, ProBenchReport
from vlmscope.tracks.simplevqa.report import tables_markdown

THIRD = 0.3333  # SimpleVQA's rates as its official scorer rounds them (4 decimals)
CGA = 0.4545


def _simplevqa(model: str) -> SummaryRecord:
    table = {
        "F": THIRD,
        "CO": THIRD,
        "CGA": CGA,
        "NA": 0.2667,
        "IN": 0.4,
        "n_graded": 15,
        "n_judge_unparseable": 0,
        "ci95": {"F": [0.1234, 0.5678], "CGA": [0.2, 0.7]},
    }
    scores = {**table, "overall": table}
    return SummaryRecord(model, "simplevqa", 15, scores, {}, {}, "", "", "", Path("."))


def test_the_simplevqa_page_shows_the_overviews_numbers() -> None:
    record = _simplevqa("m")
    overview = overview_frame([record], {}).set_index("Model").loc["m"]
    page = svqa.factuality_frame({"m": record}, "Overall").set_index("Model").loc["m"]
    assert page["F"] == overview["SimpleVQA F"] == 33.33
    assert page["CGA"] == overview["SimpleVQA CGA"] == 45.45
    assert f"{page['F']:.2f}" == scaled(THIRD, "score")  # compare's text of the same number


def test_interval_bounds_have_the_same_digits_on_every_track_page() -> None:
    record = _simplevqa("m")
    page = svqa.factuality_frame({"m": record}, "Overall").set_index("Model").loc["m"]
    megabench = megabench_headline_ci.ci_text(
        {"overall": THIRD, "intervals": {"overall": [0.1234, 0.5678]}},
        "overall",
        ("intervals", "overall"),
    )
    assert page["F 95% CI"] == megabench == "12.34 - 56.78"


def test_a_win_rate_has_the_same_digits_on_every_board_table() -> None:
    """The ProBench joint board, the VisionArena-Bench table and ProBench's official table
    show a win rate (already in percent) as the rates beside them are shown."""
    entry = ModelRating(rating=1187.07, lower=1027.25, upper=1306.75, win_rate=60.36, battles=46)
    anchor = ModelRating(rating=1000.0, lower=1000.0, upper=1000.0, win_rate=50.0, battles=46)
    board = RatingBoard(models={"m": entry, "anchor": anchor})
    joint = rating_frame(board).set_index("Model").loc["m"]
    bench = bench_frame(board, OVERALL, False).set_index("Model").loc["m"]
    official = official_frame({"m": _probench("m", 60.36)}).set_index("Model").loc["m"]
    assert joint["Win rate"] == bench["Win rate (%)"] == official["Single-round Win rate"] == 60.36


def _probench(model: str, win_rate: float) -> SummaryRecord:
    entry = {"score": 1187, "lower": 1027, "upper": 1307, "win_rate": win_rate, "prompts": 5}
    scores = {"baseline": "b", "tracks": {"singleround": entry}}
    return SummaryRecord(model, "probench", 5, scores, {}, {}, "", "", "", Path("."))


def test_the_runs_simplevqa_tables_show_the_spaces_numbers() -> None:
    """`simplevqa_tables.md`, published with the result dataset, writes F as the page does."""
    record = _simplevqa("m")
    page = svqa.factuality_frame({"m": record}, "Overall").set_index("Model").loc["m"]
    table = dict(record.scores["overall"], ci95={"F": [0.1234, 0.5678]})
    written = tables_markdown({"overall": table})
    f_cell = f"{page['F']:.2f} [{page['F 95% CI'].replace(' - ', ', ')}]"
    assert f_cell == "33.33 [12.34, 56.78]" and f_cell in written


def test_a_rating_has_the_same_digits_in_the_run_table_the_space_and_compare() -> None:
    """The run's terminal table, the board tables and `vlmscope compare` write a joint board's
    rating, and its interval, to the same decimals (`1187.1`, not `1187` in one of them)."""
    entry = ModelRating(rating=1187.07, lower=1027.25, upper=1306.75, win_rate=60.36, battles=46)
    shown = rating_frame(RatingBoard(models={"m": entry})).set_index("Model").loc["m"]
    assert shown["Rating"] == 1187.1 and scaled(1187.07, POINTS) == "1187.1"
    assert rating_text((1187.07, 1027.25, 1306.75)) == "rating=1187.1 (95% 1027.2-1306.8)"


def test_the_run_table_shows_a_headlines_interval_where_the_space_does() -> None:
    """A headline the Space shows with its 95% interval has it in the run's table too (as
    ratings there always had), from the same place in the summary."""
    record = _simplevqa("m")
    page = svqa.factuality_frame({"m": record}, "Overall").set_index("Model").loc["m"]
    keys = headline_keys("simplevqa")
    line = headline(
        dict(record.scores),
        keys=keys,
        intervals=headline_intervals("simplevqa", dict(record.scores)),
    )
    assert line.startswith("F=0.3333 (95% 0.1234-0.5678)  CO=0.3333  CGA=0.4545 (95% 0.2-0.7)")
    assert page["F 95% CI"] == "12.34 - 56.78"
    megabench = {"overall": 0.875, "core": 1.0, "intervals": {"overall": [0.8, 0.9]}}
    assert headline(megabench, intervals=headline_intervals("megabench", megabench)) == (
        "overall=0.875 (95% 0.8-0.9)  core=1"  # Core's interval not recorded: none shown
    )


def test_the_judge_consistency_rates_read_the_one_percent_rule() -> None:
    """A pairwise page's judge section shows its rates (a third of the prompts flipped) with
    the digits of every other rate on the page."""
    found = {"both_read": 3, "order_disagreement_rate": 1 / 3, "tie_rate": 2 / 3}
    record = SummaryRecord(
        "m", "probench", 3, {"consistency": found}, {}, {}, "", "", "", Path(".")
    )
    frame = consistency_frame(None, {"m": record}).set_index("Model").loc["m"]
    assert frame["Order disagreements (%)"] == percent(1 / 3) == 33.33
    assert frame["Ties (%)"] == 66.67


def test_no_difference_reads_as_zero_however_it_was_computed() -> None:
    """Two models tied on every item: `compare` shows `+0.00 [0.00, 0.00]`, as the overview
    shows 0, never `+-0.00 [-0.00, -0.00]` (a negative zero from a subtraction)."""
    tied = PairedNumber("CO", 0.0, 0.0, Interval(value=-0.0, lower=-0.0, upper=-0.0))
    assert estimate_text(tied) == "+0.00 [0.00, 0.00]"
    almost = PairedNumber("CO", 0.0, 0.0, Interval(value=-1e-9, lower=-0.1, upper=0.1))
    assert estimate_text(almost) == "+0.00 [-10.00, 10.00]"
    assert percent_text(-0.0) == "0.00"
    same = PairedNumber("rating difference", 1000.0, 1000.0, Interval(-0.0, -0.04, 0.0), POINTS)
    assert estimate_text(same) == "+0.0 [0.0, 0.0]"


def test_the_run_table_shows_probenchs_headlines_as_the_overview_does() -> None:
    """ProBench's headlines (its official score per track, registered once) are what the
    overview shows; the run's table shows them too, beside the joint board's rating, so the
    number under "ProBench" is the same in both."""
    record = _probench("m", 60.36)
    overview = overview_frame([record], {}).set_index("Model").loc["m"]
    shown = registered_headlines("probench", dict(record.scores))
    assert overview["ProBench single-round Elo"] == 1187
    assert shown.startswith("single-round Elo=1187 (95% 1027-1307)")
    assert "multi-round Elo=n/a" in shown  # registered, not in this summary: said, not dropped
    assert registered_headlines("simplevqa", {"F": 0.5}) == ""  # top-level: `headline` shows it


def test_the_run_table_counts_samples_as_the_summary_and_the_space_do() -> None:
    """A multi-turn track asks more than once per sample: the table's `samples` is the number
    of samples (the summary's `n_samples`, the Space's `Samples`), and its requests are counted
    under their own name, beside cached / generated / failed."""
    report = RunReport(
        tracks=[TrackReport("m", "probench", total=24, cached=4, generated=20, samples=12)]
    )
    header, _, line = format_table(report).splitlines()[:3]
    columns = dict(zip(header.split(), line.split(), strict=False))
    assert (columns["samples"], columns["requests"], columns["cached"]) == ("12", "24", "4")
    record = _probench("m", 60.36)
    assert samples_text([record]) == "5"  # the Space's count: the summary's n_samples


def test_a_joint_boards_win_rate_interval_shows_wherever_the_win_rate_does() -> None:
    """A pairwise run's joint board records each win rate's interval: ProBench's joint table
    shows it as the VisionArena-Bench table does; a board without one (human battles) keeps
    its columns."""
    bounds = {"win_rate_lower": 37.77, "win_rate_upper": 75.2}
    entry = ModelRating(1187.07, 1027.25, 1306.75, win_rate=60.36, battles=46, extra=bounds)
    board = RatingBoard(models={"m": entry})
    joint = rating_frame(board).set_index("Model").loc["m"]
    bench = bench_frame(board, OVERALL, False).set_index("Model").loc["m"]
    assert joint["Win rate 95% CI"] == bench["Win rate 95% CI"] == win_rate_ci(entry)
    plain = RatingBoard(models={"m": ModelRating(1187.07, 1027.25, 1306.75, 60.36, 46)})
    assert "Win rate 95% CI" not in rating_frame(plain).columns


def test_an_intervals_reach_has_the_digits_of_its_number() -> None:
    """The overview writes how far F's interval reaches (`+23.45 / -20.99`) with the digits of
    F and of the bounds the SimpleVQA page writes (`12.34 - 56.78`), so one can be read off
    the other; a win rate's reach likewise; a rating's keeps the rating's one decimal."""
    record = _simplevqa("m")
    frame = overview_frame([record], {})
    cells = dict(zip(frame.columns, overview_cells(frame, [record], {}).display[0], strict=True))
    assert cells["SimpleVQA F"].splitlines()[:2] == ["33.33", "+23.45 / -20.99"]
    bounds = {"win_rate_lower": 37.77, "win_rate_upper": 75.2}
    entry = ModelRating(1187.07, 1027.25, 1306.75, win_rate=60.36, battles=46, extra=bounds)
    assert win_rate_ci(entry) == "+14.84 / -22.59"
    assert ci_text(entry) == "+119.7 / -159.8"


def test_an_average_answer_length_is_truncated_as_the_references_print_it(tmp_path: Path) -> None:
    """arena-hard-auto and ProBench print `int(avg_tokens)`: 38.7 tokens read 38 in ProBench's
    table (the Space's and the run's file) and in the VisionArena-Bench table, not 39."""
    entry = ModelRating(rating=1187.07, lower=1027.25, upper=1306.75, win_rate=60.36, battles=46)
    settings = BoardSettings(extra={"avg_tokens": {"m": 38.7}})
    bench = bench_frame(RatingBoard(models={"m": entry}, settings=settings), OVERALL, False)
    assert bench.set_index("Model").loc["m", "Avg tokens"] == 38
    track = {"score": 1187, "lower": 1027, "upper": 1307, "win_rate": 60.36, "prompts": 5}
    track |= {"avg_tokens": 38.7, "baseline_avg_tokens": 511.9}
    scores = {"baseline": "b", "tracks": {"singleround": track}}
    record = SummaryRecord("m", "probench", 5, scores, {}, {}, "", "", "", Path("."))
    official = official_frame({"m": record}).set_index("Model")
    assert official.loc["m", "Single-round Avg tokens"] == 38
    assert official.loc["b", "Single-round Avg tokens"] == 511
    ProBenchReport(scores, {"singleround": track}).write_files(tmp_path)
    row = (tmp_path / TABLE_FILE).read_text(encoding="utf-8").splitlines()[-1]
    assert row == "| singleround | 1187 | (-160, 120) | 38 | 60.36% |"  # the reference's tuple


def test_a_cost_reads_the_same_in_the_runs_ledger_and_the_spaces_cost_table() -> None:
    """The run's ledger printed 0.0011 USD where the Space's cost table showed 0.001093."""
    ledger = {"cost_usd": 0.0010932, "pricing": "prices.yaml"}
    record = SummaryRecord("m", "megabench", 8, {"ledger": ledger}, {}, {}, "", "", "", Path("."))
    shown = cost_frame([record]).set_index("Model").loc["m", "Cost (USD)"]
    assert money(0.0010932) == f"{shown} USD" == "0.0011 USD"
    assert money(1234.567) == "1,234.57 USD"


def test_a_reach_keeps_its_sign_when_a_bound_lies_on_the_other_side() -> None:
    """A rating fitted on all battles can lie outside its bootstrap interval when battles are
    few: the lower bound's reach then reads `+`, never `--` nor a clamped `-0.0`, on the rating
    boards, the win-rate column and the overview's headline reaches alike."""
    assert offsets_text(36.44, -19.64, 1) == "+36.4 / -19.6"
    assert offsets_text(0.0, -0.0, 2) == "+0.00 / -0.00"
    assert offsets_text(0.004, -0.004, 2) == "+0.00 / -0.00"
    assert offsets_text(3.1, 0.4, 1) == "+3.1 / +0.4"
    assert offsets_text(-0.3, -2.0, 1) == "-0.3 / -2.0"
    above = ModelRating(1000.0, 1000.4, 1003.1, win_rate=50.0, battles=3, extra={})
    assert ci_text(above) == "+3.1 / +0.4"
    rates = {"win_rate_lower": 51.0, "win_rate_upper": 60.0}
    assert win_rate_ci(ModelRating(1000.0, 990.0, 1010.0, 50.0, 3, extra=rates)) == "+10.00 / +1.00"
    assert reach_text(0.5, Bounds(0.52, 0.6), 100) == "+10.00 / +2.00"
    assert ci_offsets({"score": 1114, "lower": 1107, "upper": 1122}) == "+8 / -7"
    assert ci_offsets({"score": 1114, "lower": 1115, "upper": 1122}) == "+8 / +1"


@pytest.mark.parametrize(("limit", "said"), [(1, "the first row of"), (3, "the first 3 rows of")])
def test_a_limited_runs_table_says_how_many_rows_it_read(limit: int, said: str) -> None:
    """The table's closing line names the limit in words that read right for one row too."""
    report = RunReport(tracks=[TrackReport("m", "probench", total=1, samples=1)], limit=limit)
    closing = format_table(report).splitlines()[-1]
    assert f"(--limit {limit}: {said} each track" in closing, closing
