"""A pairwise track end to end on the phased runner, judged through a local OpenAI-compatible
server: three models, the baseline listed first, in the middle and last, one joint board."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.servers import OpenAIStub
from vlmscope.config import ConfigError, parse_config
from vlmscope.hub_export import load_folder
from vlmscope.judges.pairwise import ARENA_HARD_NUDGE
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.runner.loop import RunReport, run
from vlmscope.runner.results import board_dir
from vlmscope.runner.table import format_table

TRACK = "colours_pairwise"
PREFERENCE = {"red": 1, "blue": -1}  # the judge likes red best and blue least


def replies(call: Any) -> str:
    """The bots always answer their colour; the judge prefers by `PREFERENCE` and says nothing
    useful when a green answer is involved (-> nudge, then still unparseable)."""
    if call.body and call.body.get("model") in ("red-bot", "blue-bot"):
        return call.body["model"].removesuffix("-bot")
    text = call.prompt if call.body is None else call.body["messages"][-1]["content"]
    if isinstance(text, list):
        text = next(p["text"] for p in text if p["type"] == "text")
    if ARENA_HARD_NUDGE in str(text):
        return "Still undecided."
    a = re.search(r"Assistant A's Answer\|>\n(.*)\n<\|The End", text).group(1)
    b = re.search(r"Assistant B's Answer\|>\n(.*)\n<\|The End", text).group(1)
    if "green" in (a, b):
        return "Hard to say."
    score_a, score_b = PREFERENCE.get(a, 0), PREFERENCE.get(b, 0)
    if score_a == score_b:
        return "Same: [[A=B]]"
    return "[[A>>B]]" if score_a > score_b else "[[B>A]]"


def _models(base_url: str, baseline_at: int) -> list[dict[str, Any]]:
    bots = [
        {"backend": "openai", "name": name, "base_url": base_url, "model": name}
        for name in ("red-bot", "blue-bot")
    ]
    bots.insert(baseline_at, {"backend": "oracle", "name": "baseline"})
    return bots


def _config(out: Path, base_url: str, baseline_at: int, baseline: str = "baseline") -> Any:
    return parse_config(
        {
            "output_dir": str(out),
            "models": _models(base_url, baseline_at),
            "tracks": [
                {
                    "name": TRACK,
                    "judge": {
                        "backend": "openai",
                        "name": "judge",
                        "base_url": base_url,
                        "model": "judge",
                        "max_retries": 1,
                    },
                    "options": {"baseline": baseline, "bootstrap_rounds": 20},
                }
            ],
        }
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, RunReport]]:
    """The same three models with the baseline listed first, in the middle and last."""
    out = {}
    with OpenAIStub(replies) as stub:
        for baseline_at in (0, 1, 2):
            folder = tmp_path_factory.mktemp(f"baseline_at_{baseline_at}")
            out[baseline_at] = (folder, run(_config(folder, stub.base_url, baseline_at)))
    return out


def _board(folder: Path) -> dict[str, Any]:
    summary = load_folder(board_dir(folder, "colours_pairwise"), "summary")
    assert len(summary) == 1 and summary[0]["kind"] == "rating_board"
    return summary[0]["board"]


def test_config_order_does_not_change_the_joint_board(runs):
    boards = [_board(folder) for folder, _ in runs.values()]
    assert boards[0] == boards[1] == boards[2]
    board = RatingBoard.from_json(boards[0])
    assert list(board.models) == ["red-bot", "baseline", "blue-bot"]  # best first
    for entry in board.models.values():
        assert entry.lower <= entry.rating <= entry.upper
    assert board.models["baseline"].rating == 1000.0  # arena-hard v0.1 anchors the baseline
    assert board.settings.reference == "arena-hard-v0.1" and board.settings.rounds == 20


def test_no_sample_waits_for_a_baseline_listed_later(runs):
    for _, report in runs.values():
        by_model = {t.model: t for t in report.tracks}
        assert set(by_model) == {"baseline", "red-bot", "blue-bot"}
        for bot in ("red-bot", "blue-bot"):
            outcomes = by_model[bot].outcomes
            assert "baseline_missing" not in outcomes
            # 8 prompts: the 2 green ones stay unparseable, the other 6 are judged
            assert outcomes == {"ok": 6, "judge_unparseable": 2}
            assert by_model[bot].summary["judged_prompts"] == 8
            assert by_model[bot].summary["unparseable_games"] == 4
        assert by_model["baseline"].summary["role"] == "baseline"


def test_details_keep_both_games_and_the_nudge(runs):
    folder, report = runs[2]
    red = next(t for t in report.tracks if t.model == "red-bot")
    details = load_folder(red.result_dir, "details")
    extra = [json.loads(e) for e in details["extra"]]
    assert all(len(e["games"]) == 2 for e in extra)
    assert any(g["nudged"] for e in extra for g in e["games"])
    board_details = load_folder(board_dir(folder, "colours_pairwise"), "details")
    assert len(board_details) == 16  # 8 prompts of each judged model
    assert set(board_details["model_a"]) == {"baseline"}


def test_the_run_table_shows_each_rated_models_rating_and_interval(runs):
    _, report = runs[0]
    (board,) = report.boards
    table = format_table(report)
    for model in ("red-bot", "blue-bot", "baseline"):
        rating, lower, upper = board.ratings[model]
        assert lower <= rating <= upper
        row = next(line for line in table.splitlines() if line.startswith(model))
        assert f"rating={rating:.1f} (95% {lower:.1f}-{upper:.1f})" in row
    assert board.ratings["red-bot"][0] > board.ratings["blue-bot"][0]  # the judge likes red


def test_summary_states_the_effective_judge_and_generation_limits(runs):
    _, report = runs[0]
    red = next(t for t in report.tracks if t.model == "red-bot")
    assert red.summary["judge"] == {"judge": "judge", "max_new_tokens": 4096, "temperature": 0.0}
    assert red.summary["generation"]["max_new_tokens"] == [8]


def test_a_baseline_missing_from_the_models_is_rejected_naming_the_field(tmp_path):
    config = _config(tmp_path, "http://127.0.0.1:9", 0, baseline="gpt-4o")
    with pytest.raises(ConfigError, match=r"tracks\.0\.options\.baseline: model 'gpt-4o'"):
        run(config)
    assert not (tmp_path / "cache.sqlite").exists()  # rejected before anything was asked


def test_the_space_rating_page_shows_all_three_models_from_the_one_board(runs):
    from vlmscope.leaderboard.load import ResultsLocation
    from vlmscope.leaderboard.overview import overview_frame
    from vlmscope.leaderboard.rating_view import board_view, rating_frame
    from vlmscope.leaderboard.result_store import ResultStore

    folder, _ = runs[1]
    store = ResultStore(ResultsLocation.local(folder))
    assert store.tracks() == [
        "colours_pairwise"
    ]  # the Space gives a track with a board its rating page
    board = store.boards["colours_pairwise"].board
    frame = rating_frame(board_view(board))
    assert list(frame["Model"]) == ["red-bot", "baseline", "blue-bot"]
    assert all(re.fullmatch(r"\+\d+\.\d / -\d+\.\d", ci) for ci in frame["95% CI"])
    assert list(frame["Rating"]) == [round(board.models[m].rating, 1) for m in frame["Model"]]
    overview = overview_frame(store.summaries, store.boards)
    rated = overview.set_index("Model")
    assert set(rated.index) >= {"red-bot", "baseline", "blue-bot"}
    assert rated.loc["red-bot"].filter(like="rating").iloc[0] == frame["Rating"].iloc[0]


def test_a_style_twin_that_cannot_be_fitted_is_named_and_the_board_stands(tmp_path):
    """One-word answers have the same length and no markdown: with style control the features
    never vary, so the style fit is impossible. The plain board is written, and says why it
    has no style-controlled twin, rather than rating everyone 1000 or losing the board."""
    with OpenAIStub(replies) as stub:
        config = _config(tmp_path, stub.base_url, 0)
        track = config.tracks[0].model_copy(
            update={"options": {**config.tracks[0].options, "style_control": True}}
        )
        report = run(config.model_copy(update={"tracks": [track]}))
    (board,) = report.boards
    assert board.error is None and board.result_dir is not None
    (row,) = list(load_folder(board_dir(tmp_path, "colours_pairwise"), "summary"))
    written = RatingBoard.from_json(row["board"])
    assert written.style_control is None
    assert "is the same for every battle" in written.settings.extra["style_control_skipped"]
    assert all(t.result_dir is not None and t.result_dir.exists() for t in report.tracks)


def test_a_board_that_cannot_be_fitted_is_reported_not_fatal(tmp_path):
    """ProBench's reference is style-controlled itself: with features that never vary there is
    no board at all. The run still writes every model's results and says why there is none."""
    with OpenAIStub(replies) as stub:
        config = _config(tmp_path, stub.base_url, 0)
        track = config.tracks[0].model_copy(
            update={"options": {**config.tracks[0].options, "reference": "probench"}}
        )
        report = run(config.model_copy(update={"tracks": [track]}))
    (board,) = report.boards
    assert board.result_dir is None and "is the same for every battle" in str(board.error)
    assert not board_dir(tmp_path, "colours_pairwise").exists()
    assert all(t.result_dir is not None and t.result_dir.exists() for t in report.tracks)


def test_a_limited_run_writes_its_board_beside_the_full_one(tmp_path):
    """A `--limit` run's joint board goes to `boards/<track>-limit<N>`: the full board stays on
    disk, and the Space shows it however newer the limited one is."""
    from vlmscope.leaderboard.load import ResultsLocation
    from vlmscope.leaderboard.result_store import ResultStore

    with OpenAIStub(replies) as stub:
        full = _config(tmp_path, stub.base_url, 0)
        run(full)
        full_board = _board(tmp_path)
        run(full.model_copy(update={"limit": 2}))
    assert _board(tmp_path) == full_board
    (limited,) = load_folder(board_dir(tmp_path, TRACK, 2), "summary")
    assert limited["limit"] == 2 and limited["board"] != full_board
    shown = ResultStore(ResultsLocation.local(tmp_path)).boards[TRACK]
    assert shown.limit is None and shown.board == RatingBoard.from_json(full_board)
