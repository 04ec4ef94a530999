"""Tie shares, the minimum-votes rule and rank changes under style control."""

from __future__ import annotations

import pytest

from vlmscope.ratings.boards.arena_breakdown import rank_changes, thin_models, tie_shares
from vlmscope.ratings.boards.board import BoardSettings, ModelRating, RatingBoard


def _board(ranks: dict[str, int], battles: float = 150.0, style: bool = False) -> RatingBoard:
    return RatingBoard(
        {
            name: ModelRating(1000.0 - rank, 990.0, 1010.0, battles=battles, rank=rank)
            for name, rank in ranks.items()
        },
        settings=BoardSettings(style_control=style),
    )


def test_tie_shares_count_each_kind_in_percent() -> None:
    winners = ["model_a", "tie", "tie (bothbad)", "tie (bothbad)", "model_b"]
    shares = tie_shares(winners)
    assert shares == {"battles": 5, "tie": 20.0, "tie (bothbad)": 40.0}
    assert tie_shares([]) == {"battles": 0, "tie": None, "tie (bothbad)": None}


def test_thin_models_are_those_under_the_minimum() -> None:
    board = RatingBoard(
        {
            "a": ModelRating(1, 0, 2, battles=100),
            "b": ModelRating(1, 0, 2, battles=99.5),
            "c": ModelRating(1, 0, 2, battles=None),
        }
    )
    assert thin_models(board) == ["b"]
    assert thin_models(board, min_votes=0) == []
    with pytest.raises(ValueError, match="min_votes"):
        thin_models(board, min_votes=-1)


def test_rank_changes_compare_with_the_style_controlled_companion() -> None:
    plain = _board({"x": 1, "y": 2, "z": 3})
    assert rank_changes(plain) == {}
    styled = _board({"x": 3, "y": 1, "z": 2}, style=True)
    assert rank_changes(plain.with_companions(style_control=styled)) == {"x": -2, "y": 1, "z": 1}
