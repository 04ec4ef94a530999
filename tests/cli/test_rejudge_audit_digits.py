"""The re-judge audit writes a board's ratings as the run's table printed just above it does,
and as the Space and `vlmscope compare` show them: the same decimals (`shown_numbers`)."""

from __future__ import annotations

from vlmscope.cli.rejudge_audit import format_audit
from vlmscope.runner.table import rating_text


def test_the_audit_writes_ratings_as_the_run_table_does() -> None:
    old, new = (1187.07, 1027.25, 1306.75), (1128.24, 959.41, 1283.84)
    audit = {
        "kind": "board",
        "agreement": {"spearman": 1.0, "kendall_tau": 1.0},
        "pinned": None,
        "models": [
            {
                "model": "m",
                "old_rank": 1,
                "new_rank": 1,
                "rank_change": 0,
                "old": old,
                "new": new,
                "interval_moved": 68.44,
            }
        ],
        "moved_most": ["m"],
    }
    printed = format_audit({"probench": audit}, "judge-a", "judge-b")
    assert rating_text(new) == "rating=1128.2 (95% 959.4-1283.8)"
    assert "1187.1 [1027.2, 1306.8]" in printed and "1128.2 [959.4, 1283.8]" in printed
    assert printed.splitlines()[-2].split()[-1] == "68.4"  # how far the interval moved


def test_the_audit_ranks_models_as_their_boards_and_the_space_do() -> None:
    """Two models whose intervals overlap share rank 1 on the board the Space shows; the audit
    says the same, not 1 and 2 by rating alone."""
    from vlmscope.cli.rejudge_audit import board_audit
    from vlmscope.leaderboard.rating_view import rating_frame
    from vlmscope.ratings.boards.board import ModelRating, RatingBoard

    def board(shift: float) -> RatingBoard:
        return RatingBoard(
            models={
                "a": ModelRating(1187.1 + shift, 1027.3, 1306.8, battles=900, rank=1),
                "b": ModelRating(1069.3, 962.2, 1191.1, battles=900, rank=1),
            }
        )

    old, new = board(0.0), board(-20.0)
    audit = board_audit(old, new)
    shown = rating_frame(old).set_index("Model")["Rank"]
    assert {m["model"]: m["old_rank"] for m in audit["models"]} == dict(shown) == {"a": 1, "b": 1}
    assert all(m["rank_change"] == 0 for m in audit["models"])
