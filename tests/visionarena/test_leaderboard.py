"""The VisionArena leaderboard: FastChat's boards through the track's own path, plus the paper's
tie shares, minimum-votes rule and rank changes under style control."""

from __future__ import annotations

from functools import cache

from tests.ratings.arena_golden import assert_board_matches, golden, records, separable_in
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.tracks.visionarena.report import VISION_BOARDS, ArenaSettings, arena_leaderboard
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, battle_record, read_battle_rows

BOARDS = golden("fastchat_leaderboards.json")


@cache
def golden_leaderboard() -> RatingBoard:
    return arena_leaderboard(records(), ArenaSettings(languages=("English",)))


def test_fastchat_goldens_through_the_leaderboard() -> None:
    board = golden_leaderboard()
    assert_board_matches(board.to_json(), BOARDS["full"])
    assert board.style_control is not None
    assert_board_matches(board.style_control.to_json(), BOARDS["full_style_control"])
    shared = {"captioning", "creative_writing_vision", "diagram", "entity_recognition"}
    shared |= {"homework", "humor", "is_preset", "ocr", "no_tie"}
    for name in shared:
        assert_board_matches(board.categories[name].to_json(), BOARDS[name], separable_in(name))
    captioning_style = board.categories["captioning"].style_control
    assert captioning_style is not None
    assert_board_matches(
        captioning_style.to_json(),
        BOARDS["captioning_style_control"],
        separable_in("captioning_style_control"),
    )
    assert_board_matches(
        board.categories["language: English"].to_json(), BOARDS["english"], separable_in("english")
    )
    # the golden battles carry no refusal labels: that board is listed with why, not faked
    assert set(board.skipped_categories) == {"no_refusal"}


def test_the_papers_numbers_beside_every_board() -> None:
    board = golden_leaderboard()
    extra = board.settings.extra
    names = {"full", *board.categories}
    assert (
        set(extra["tie_shares"]) == set(extra["thin_models"]) == set(extra["rank_changes"]) == names
    )
    assert extra["tie_shares"]["no_tie"]["tie"] == 0.0
    assert extra["tie_shares"]["no_tie"]["tie (bothbad)"] == 0.0
    full = extra["tie_shares"]["full"]
    anony = [r for r in records() if r["anony"]]
    assert full["battles"] == len(anony)
    assert full["tie (bothbad)"] == 100 * sum(r["winner"] == "tie (bothbad)" for r in anony) / len(
        anony
    )
    # separable small boards hold models under 100 votes; the full board none
    assert extra["thin_models"]["full"] == []
    assert "smolvlm-2b-05" in extra["thin_models"]["captioning"]
    styled = board.style_control
    assert styled is not None
    assert extra["rank_changes"]["full"] == {
        m: board.models[m].rank - styled.models[m].rank
        for m in board.models  # type: ignore[operator]
    }


def test_the_shipped_battles_rate_with_every_category_and_language() -> None:
    rows = read_battle_rows(SAMPLE_DIR / "battle")
    board = arena_leaderboard(
        [battle_record(r) for r in rows], ArenaSettings(rounds=10, anony_assumed=True)
    )
    languages = {"language: English", "language: Chinese"}
    assert set(VISION_BOARDS) | languages == set(board.categories)
    # the few Russian battles link two pairs of models that never met: no board on one scale
    russian = board.skipped_categories["language: Russian"]
    assert russian.startswith("the battles form 2 groups of models that never met")
    # a small board whose style features never vary keeps its ratings, and says why it has
    # no style-controlled twin
    for name, category in board.categories.items():
        reason = category.settings.extra.get("style_control_skipped")
        assert (category.style_control is None) == (reason is not None), name
    assert "anonymous" in board.settings.extra["anony"]
    assert board.settings.extra["min_votes"] == 100
    assert set(board.settings.extra["thin_models"]["full"]) == set(board.models)  # 100 battles
