"""ProBench page data over a ProBench run written by the runner's writers (`probench_results`):
the official table with the three tracks side by side, the breakdowns, the joint board, the
overview's Elo columns, the judged conversations of the sample browser, and hostile names."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.leaderboard import probench_results as pr
from tests.leaderboard.fabricate import write_probench_results
from vlmscope.leaderboard import browsed_samples as sv
from vlmscope.leaderboard import probench_view as pb
from vlmscope.leaderboard.charts import rating_points
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.rating_view import rating_frame, ratings_of
from vlmscope.leaderboard.records import SummaryRecord, by_model
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.leaderboard.values import column_types
from vlmscope.ratings.boards.board import ModelRating, RatingBoard

HOSTILE = "pb<img src=x onerror=window.__pwned=1>"
Records = dict[str, SummaryRecord]


@pytest.fixture(scope="module")
def pb_store(tmp_path_factory: pytest.TempPathFactory) -> ResultStore:
    out = tmp_path_factory.mktemp("probench") / "results"
    write_probench_results(out)
    return ResultStore(ResultsLocation.local(out))


@pytest.fixture(scope="module")
def records(pb_store: ResultStore) -> Records:
    return by_model(pb_store.summaries, pr.TRACK)


@pytest.fixture(scope="module")
def board(pb_store: ResultStore) -> RatingBoard:
    return pb_store.boards[pr.TRACK].board


def test_the_run_reads_back_as_two_models_and_one_board(pb_store: ResultStore) -> None:
    assert pb_store.problems == [] and pb_store.tracks() == [pr.TRACK]
    assert pb_store.models(pr.TRACK) == sorted(pr.MODELS)
    assert pb_store.boards[pr.TRACK].n_rows == 2 * len(pr.PROMPTS)  # one verdict record a game pair


def test_official_table_has_the_three_tracks_side_by_side(records: Records) -> None:
    frame = pb.official_frame(records)
    per_track = [f"{title} {m}" for title in pb.TRACKS.values() for m in pb.MEASURES]
    assert list(frame.columns) == ["Model", *per_track, *pb.COUNT_COLUMNS]
    assert list(frame["Model"]) == ["pb-large", pr.BASELINE, "pb-small"]  # best first
    large = frame.set_index("Model").loc["pb-large"]
    official = records["pb-large"].scores["tracks"]["multi-round"]
    assert large["Multi-round Score"] == official["score"]
    assert large["Multi-round 95% CI"] == "+55 / -48"  # ProBench's (-48, 55), as offsets
    assert large["Multi-round Win rate"] == official["win_rate"]
    assert large["Multi-round Avg tokens"] == round(official["avg_tokens"])
    assert (large["Judged prompts"], large["Unparseable games"]) == (12, 0)
    assert frame.set_index("Model").loc["pb-small", "Unparseable games"] == 1


def test_the_baseline_row_is_pinned_at_1114(records: Records) -> None:
    baseline = pb.official_frame(records).set_index("Model").loc[pr.BASELINE]
    for title in pb.TRACKS.values():
        assert baseline[f"{title} Score"] == 1114 and baseline[f"{title} 95% CI"] == "+0 / -0"
        assert baseline[f"{title} Win rate"] == 50.0
    expected = records["pb-large"].scores["tracks"]["singleround"]["baseline_avg_tokens"]
    assert baseline["Single-round Avg tokens"] == round(expected)
    assert math.isnan(baseline["Judged prompts"])


def test_breakdown_choices_follow_probench_order(records: Records, board: RatingBoard) -> None:
    assert pb.tracks_of(records, board) == list(pb.TRACKS)
    single = pb.breakdown_choices(records, board, "singleround")
    assert single[:3] == [
        pb.WHOLE_TRACK,
        "question_category: Coding",
        "question_category: Mathematics",
    ]
    assert single.index("image_category: Diagrams") < single.index("challenge_image: EASY")
    rounds = pb.breakdown_choices(records, board, "multi-round")
    assert rounds == [pb.WHOLE_TRACK, "round: 2", "round: 4", "round: 6+"]
    languages = pb.breakdown_choices(records, board, "multi-linguistic")
    assert languages == [pb.WHOLE_TRACK, "language: pt", "language: fr", "language: other"]
    assert pb.breakdown_choices({}, None, "singleround") == [pb.WHOLE_TRACK]


def test_breakdown_table_shows_a_skipped_subset_with_its_reason(records: Records) -> None:
    frame = pb.breakdown_frame(records, "singleround", "question_category: Coding")
    frame = frame.set_index("Model")
    assert list(frame.index) == ["pb-large", pr.BASELINE, "pb-small"]
    large = records["pb-large"].scores["breakdowns"]["singleround"]["question_category"]
    assert frame.loc["pb-large", "Score"] == large["Coding"]["score"]
    assert frame.loc["pb-large", "Prompts"] == 2
    assert frame.loc["pb-large", "95% CI"] == "+110 / -95"
    assert math.isnan(frame.loc["pb-small", "Score"])
    assert frame.loc["pb-small", "Note"] == f"not fitted: {pr.NOT_FITTED}"
    assert frame.loc[pr.BASELINE, "Score"] == 1114
    whole = pb.breakdown_frame(records, "multi-linguistic", pb.WHOLE_TRACK).set_index("Model")
    small = records["pb-small"].scores["tracks"]
    assert whole.loc["pb-small", "Score"] == small["multi-linguistic"]["score"]
    assert pb.breakdown_frame(records, "singleround", "language: xx").empty


def test_joint_board_view_per_selection(board: RatingBoard) -> None:
    view = pb.joint_view(board, "multi-round", "round: 4")
    assert view is board.categories["multi-round / round: 4"]
    frame = rating_frame(view)
    assert list(frame["Model"]) == ["pb-large", pr.BASELINE, "pb-small"]
    assert frame.set_index("Model").loc[pr.BASELINE, "Rating"] == 1114.0
    assert pb.joint_view(board, "singleround", pb.WHOLE_TRACK) is board.categories["singleround"]
    assert pb.joint_note(board, "multi-round", "round: 4") == ""
    assert pb.joint_view(board, "multi-round", "round: 6+") is None
    assert pr.NOT_FITTED in pb.joint_note(board, "multi-round", "round: 6+")
    assert pb.joint_note(None, "singleround", pb.WHOLE_TRACK).startswith("No joint board")


def test_overview_shows_the_official_elo_not_percentages(
    pb_store: ResultStore, records: Records
) -> None:
    frame = overview_frame(pb_store.summaries, pb_store.boards).set_index("Model")
    tracks = records["pb-small"].scores["tracks"]
    assert frame.loc["pb-small", "ProBench single-round Elo"] == tracks["singleround"]["score"]
    assert (
        frame.loc["pb-small", "ProBench multi-linguistic Elo"]
        == tracks["multi-linguistic"]["score"]
    )
    assert "ProBench rating" not in frame.columns  # the joint board is on the ProBench page
    assert list(frame.index) == ["pb-large", "pb-small"]


def test_a_multi_round_sample_shows_its_turns_and_both_games(pb_store: ResultStore) -> None:
    rows = pb_store.details(pr.TRACK, "pb-small")
    assert sv.task_names(rows) == [sv.ALL_TASKS, "multi-linguistic", "multi-round", "singleround"]
    view = sv.sample_view(sv.find_sample(rows, pr.MULTI_ROUND_SAMPLE))
    assert view.conversation.startswith("[multi-round; round: 4]\n\n[turn 1 of 4: question]\n")
    for turn in range(1, 5):
        assert f"[turn {turn} of 4: model's answer (pb-small)]" in view.conversation
        assert f"[turn {turn} of 4: baseline's answer ({pr.BASELINE})]" in view.conversation
    assert pr.answers("pb-small", pr.MULTI_ROUND_SAMPLE)[3] in view.conversation
    assert "[game 1: baseline as A, model as B; verdict A>B (parsed); 1 attempt]" in view.judge
    assert "[game 2: model as A, baseline as B; verdict - (unparseable); 3 attempts]" in view.judge
    assert "judge_unparseable" in view.status
    assert sv.sample_view({"sample_id": "x", "extra": "{}"}).conversation == ""


def test_a_baseline_model_of_the_run_is_the_baseline_row(records: Records) -> None:
    """With `baseline_model:`, the baseline answers in the run: its summary has a role and no
    table, and it shows once, as the 1114 row, under its own name."""
    named = {
        m: SummaryRecord(
            m, pr.TRACK, 12, {**r.scores, "baseline": "own-4o"}, {}, {}, "", "", "", r.folder
        )
        for m, r in records.items()
    }
    role = {"role": "baseline", "judged_prompts": 0, "outcomes": {"ok": 12}}
    named["own-4o"] = SummaryRecord("own-4o", pr.TRACK, 12, role, {}, {}, "", "", "", Path("."))
    frame = pb.official_frame(named)
    assert list(frame["Model"]) == ["pb-large", "own-4o", "pb-small"]
    assert frame.set_index("Model").loc["own-4o", "Multi-round Score"] == 1114


def _hostile_record() -> SummaryRecord:
    reason = "<script>window.__pwned=1</script>"
    scores = {
        "baseline": pr.BASELINE,
        "tracks": {"singleround": pr.entry("pb-large", "singleround", ["sr-1"])},
        "skipped": {"singleround / language: <b>x</b>": reason},
    }
    return SummaryRecord(HOSTILE, pr.TRACK, 1, scores, {}, {}, "", "", "", Path("."))


def test_hostile_names_stay_text() -> None:
    records = {HOSTILE: _hostile_record()}
    frame = pb.official_frame(records)
    assert frame.iloc[0]["Model"] == HOSTILE  # a cell value, in a plain-text column
    assert column_types(frame.dtypes)[0] == "str"
    subset = pb.breakdown_frame(records, "singleround", "language: <b>x</b>")
    assert column_types(subset.dtypes)[-1] == "str" and "<script>" in subset.iloc[-1]["Note"]
    assert "language: <b>x</b>" in pb.breakdown_choices(records, None, "singleround")
    board = RatingBoard({HOSTILE: ModelRating(1200.0, 1170.0, 1236.0)})
    labels = rating_points(ratings_of(board), HOSTILE).data[0].x
    assert all("<img" not in label for label in labels)
    note = pb.joint_note(board, "singleround", "language: <b>x</b>")
    assert "<b>" in note and "<b>" not in markdown_literal(note)


def test_probench_gets_its_page_though_it_has_a_board(space_app, pb_store: ResultStore) -> None:  # noqa: ANN001
    app, pages, _ = space_app
    assert pages.page_for(pb_store, pr.TRACK) is pages.probench_tab
    demo = app.build_app(pb_store)
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    expected = {"official", "joint", "track", "breakdown", "subset-official", "subset-joint"}
    assert {f"probench-{name}" for name in expected} <= ids
    assert "samples-conversation" in ids
