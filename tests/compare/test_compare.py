"""Comparisons over real runs: the numbers are the summaries' own differences, identical models
differ by exactly nothing, a planted difference is found, every item left out is listed, and a
pair's numbers do not depend on which other models are compared beside it."""

from __future__ import annotations

import json

import pytest

from tests.compare.conftest import COIN, ORACLE, QUICK, TWIN
from tests.leaderboard.fabricate import BATTLES
from vlmscope.leaderboard.compare.judged import games_view
from vlmscope.leaderboard.compare.pairs import PairComparison, PairedNumber, TrackComparison
from vlmscope.leaderboard.compare.run import UnknownModel, compare_models, comparison_for
from vlmscope.leaderboard.compare.source import board_details
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.head_to_head import win_probability
from vlmscope.ratings.inputs.board_selection import select_board_battles
from vlmscope.ratings.inputs.verdict_records import verdict_record_from_dict

ROUNDS = 300
TRACKS = ("megabench", "probench", "simplevqa", "visionarena_bench", "visionarena")


def _pair(store: ResultStore, track: str, a: str, b: str, *more: str) -> PairComparison:
    report = compare_models(store, [a, b, *more], tracks=[track], rounds=ROUNDS)
    found = report.tracks[0].pair(a, b)
    assert found is not None, report.tracks[0]
    return found


def _number(pair: PairComparison, label: str, section: str = "") -> PairedNumber:
    return next(n for n in pair.numbers if n.label == label and n.section == section)


def test_every_track_is_accounted_for(compare_store: ResultStore) -> None:
    report = compare_models(compare_store, [ORACLE, COIN], rounds=ROUNDS)
    assert [t.track for t in report.tracks] == list(TRACKS)
    by_track = {t.track: t for t in report.tracks}
    for track in TRACKS[:4]:
        assert not by_track[track].skipped and by_track[track].pair(ORACLE, COIN) is not None
    arena = by_track["visionarena"]
    assert arena.skipped == "fewer than two of the models have results on this track"
    assert arena.notes == (f"no result on this track for {ORACLE}, {COIN}",)
    assert json.loads(json.dumps(report.to_json()))["tracks"][0]["track"] == "megabench"
    assert [comparison_for(compare_store, t) for t in TRACKS] == [
        "megabench",
        "judged",
        "factuality",
        "judged",
        "battles",
    ]


def test_megabench_differences_are_the_summaries_differences(compare_store: ResultStore) -> None:
    pair = _pair(compare_store, "megabench", ORACLE, COIN)
    a, b = (compare_store.summary("megabench", m).scores for m in (ORACLE, COIN))
    for label, key in (("overall", "overall"), ("Core", "core"), ("Open", "open")):
        number = _number(pair, label)
        assert (number.a, number.b) == pytest.approx((a[key], b[key]), abs=1e-12)
        assert number.estimate is not None
        assert number.estimate.value == pytest.approx(a[key] - b[key], abs=1e-12)
        assert number.estimate.lower <= number.estimate.value <= number.estimate.upper
    core = _number(pair, "Core").estimate
    assert core is not None and core.lower > 0 and core.p_value is not None and core.p_value < 0.01
    stats_a = a["summary_and_keyword_stats"]["keyword_stats"]
    stats_b = b["summary_and_keyword_stats"]["keyword_stats"]
    keywords = [n for n in pair.numbers if n.section]
    assert len(keywords) == sum(len(k) for k in stats_a.values())
    for number in keywords:
        official = stats_a[number.section][number.label]["average_score"]
        other = stats_b[number.section][number.label]["average_score"]
        assert number.estimate is not None
        assert number.estimate.value == pytest.approx(official - other, abs=1e-12)
    movers = pair.tables[0]
    assert movers.rows and all(row[0] == ORACLE and row[-1] > 0 for row in movers.rows)
    assert "queries with replacement within each drawn task" in pair.method


@pytest.mark.parametrize("track", ["megabench", "simplevqa"])
def test_identical_models_differ_by_nothing(compare_store: ResultStore, track: str) -> None:
    pair = _pair(compare_store, track, ORACLE, TWIN)
    estimates = [n.estimate for n in pair.numbers if n.estimate is not None]
    assert estimates
    for estimate in estimates:
        assert (estimate.value, estimate.lower, estimate.upper, estimate.p_value) == (
            0.0,
            0.0,
            0.0,
            1.0,
        )


def test_simplevqa_rates_and_mcnemar(compare_store: ResultStore) -> None:
    pair = _pair(compare_store, "simplevqa", ORACLE, COIN)
    a, b = (compare_store.summary("simplevqa", m).scores for m in (ORACLE, COIN))
    for metric in ("CO", "IN", "NA", "CGA", "F"):
        number = _number(pair, metric)
        assert (number.a, number.b) == pytest.approx((a[metric], b[metric]))
    mcnemar = pair.tests["mcnemar"]
    assert (mcnemar["only_a"], mcnemar["only_b"]) == (6, 0)
    assert mcnemar["p_value"] == pytest.approx(2 * 0.5**6)
    sections = {n.section for n in pair.numbers if n.section}
    assert "language: CN" in sections and "language: EN" in sections
    assert any(s.startswith("task category: ") for s in sections)


def test_judged_tracks_forecast_from_the_joint_board(compare_store: ResultStore) -> None:
    for track in ("probench", "visionarena_bench"):
        pair = _pair(compare_store, track, ORACLE, COIN)
        board = compare_store.boards[track].board
        forecast = _number(pair, f"P({ORACLE} beats {COIN})")
        gap = board.models[ORACLE].rating - board.models[COIN].rating
        assert forecast.estimate is not None
        assert forecast.estimate.value == pytest.approx(float(win_probability(gap)), abs=1e-9)
        assert forecast.estimate.lower <= forecast.estimate.value <= forecast.estimate.upper
        records = [
            verdict_record_from_dict(r["record"])
            for r in board_details(compare_store, track, ["record"])
        ]
        mine = {(r.model, r.uid): r for r in records}
        disagree = pair.tables[0]
        for uid, *_rest in disagree.rows:
            outcomes = [games_view(mine[(m, uid)].judgments)[1] for m in (ORACLE, COIN)]
            assert outcomes[0] != outcomes[1]


def test_identical_models_are_forecast_even(compare_store: ResultStore) -> None:
    pair = _pair(compare_store, "visionarena_bench", ORACLE, TWIN)
    forecast = _number(pair, f"P({ORACLE} beats {TWIN})").estimate
    assert forecast is not None and forecast.value == pytest.approx(0.5, abs=1e-6)
    assert forecast.lower <= 0.5 <= forecast.upper
    assert pair.tables[0].rows == ()  # the same verdicts on every prompt


def test_human_battles_direct_and_forecast(compare_store: ResultStore) -> None:
    a, b = "glm-4v-72b-07", "gemini-vis-2b-08"
    pair = _pair(compare_store, "visionarena", a, b)
    battles = [json.loads(line) for line in BATTLES.open()]
    rated = select_board_battles(battles)  # the battles the board was fitted on
    assert len(rated) == len(board_details(compare_store, "visionarena", ["winner"])) < len(battles)
    met = [r for r in rated if {r["model_a"], r["model_b"]} == {a, b}]
    [counts] = pair.tables[0].rows
    assert counts[0] == len(met) > 0
    direct = _number(pair, f"{a}'s win share in direct battles").estimate
    assert direct is not None and direct.lower <= direct.value <= direct.upper
    wins = sum(1 for r in met if r["winner"] == ("model_a" if r["model_a"] == a else "model_b"))
    ties = sum(1 for r in met if r["winner"].startswith("tie"))
    assert direct.value == pytest.approx((wins + ties / 2) / len(met))
    board = compare_store.boards["visionarena"].board
    forecast = _number(pair, f"forecast P({a} beats {b})").estimate
    gap = board.models[a].rating - board.models[b].rating
    assert forecast is not None and forecast.value == pytest.approx(float(win_probability(gap)))


def test_items_one_model_lacks_are_listed(compare_store: ResultStore) -> None:
    report = compare_models(compare_store, [ORACLE, QUICK], tracks=["megabench"], rounds=ROUNDS)
    track: TrackComparison = report.tracks[0]
    assert list(track.mismatch) == [QUICK] and len(track.mismatch[QUICK]) == 8
    assert any(f"{QUICK} has no result for 8 of the queries" in note for note in track.notes)
    pair = track.pair(ORACLE, QUICK)
    assert pair is not None and pair.items.startswith("8 queries in 8 tasks")


def test_a_pair_reads_the_same_beside_other_models(compare_store: ResultStore) -> None:
    for track in ("megabench", "simplevqa", "visionarena_bench"):
        alone = _pair(compare_store, track, ORACLE, COIN)
        beside = _pair(compare_store, track, ORACLE, COIN, TWIN)
        assert alone.numbers == beside.numbers, track


def test_unknown_models_and_tracks_are_named(compare_store: ResultStore) -> None:
    with pytest.raises(UnknownModel, match="no results for nobody; the results hold .*oracle"):
        compare_models(compare_store, [ORACLE, "nobody"])
    with pytest.raises(ValueError, match="no results for track nowhere"):
        compare_models(compare_store, [ORACLE, COIN], tracks=["nowhere"])
    with pytest.raises(ValueError, match="at least two different models"):
        compare_models(compare_store, [ORACLE, ORACLE])
