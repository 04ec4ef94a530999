"""VisionArena's report: the leaderboard from human battles (paper Sec. 3-4; Chatbot Arena's vision board).

Every board is FastChat's (`report_elo_analysis_results`: anonymous battles in time order,
Bradley-Terry with its bootstrap, mixtral anchored at 1114 when present), each with its
style-controlled twin (length and markdown, as FastChat): the full board, then the category
boards of the vision leaderboard (captioning, entity recognition, OCR, creative writing,
homework, diagram, humor, no refusal, exclude preset images, multi-turn, exclude ties) and one
per language. Beside the ratings, what the paper reads off them: tie and tie (bothbad) shares
per board (Table 2), models under the minimum-votes rule per board (Figs. 7-8 mark cells under
100 votes), and the rank change under style control per board (Fig. 8). A board the battles
cannot fill is listed with the reason (`skipped_categories`), never shown empty.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vlmscope.ratings.boards.arena_breakdown import (
    DEFAULT_MIN_VOTES,
    rank_changes,
    thin_models,
    tie_shares,
)
from vlmscope.ratings.boards.battle_presets import BattleSettings, battle_board
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.inputs.board_selection import BoardSelector
from vlmscope.ratings.inputs.filters import LANGUAGE_BOARD

VISION_BOARDS: tuple[str, ...] = (
    "captioning",
    "entity_recognition",
    "ocr",
    "creative_writing_vision",
    "homework",
    "diagram",
    "humor",
    "no_refusal",
    "is_preset",
    "multiturn",
    "no_tie",
)
"""The category boards of the vision leaderboard, in its order (`is_preset` = exclude preset
images); the language boards follow."""
ANONY_NOTE = (
    "rows without `anony` are rated as anonymous battles: VisionArena-Battle has no such column, "
    "every battle there was anonymous on the platform (FastChat keeps anonymous battles only)"
)


@dataclass(frozen=True)
class ArenaSettings:
    rounds: int = 100
    min_votes: int = DEFAULT_MIN_VOTES
    languages: tuple[str, ...] | None = None
    """Language boards; None = one per language the battles name, most battles first."""
    anony_assumed: bool = False
    """Some battles came without `anony` and were read as anonymous (said in the output)."""


def arena_leaderboard(
    records: Sequence[Mapping[str, Any]], settings: ArenaSettings = ArenaSettings()
) -> RatingBoard:
    """Every board, with the paper's tie shares, thin models and rank changes per board."""
    languages = settings.languages
    if languages is None:
        counts = Counter(str(r.get("language", "")) for r in records if r.get("language"))
        languages = tuple(name for name, _ in counts.most_common())
    names = (*VISION_BOARDS, *(f"{LANGUAGE_BOARD}{name}" for name in languages))
    selector = BoardSelector(records)  # each board's battles, filtered once for fit and tie shares
    board = battle_board(
        records,
        BattleSettings(reference="fastchat", rounds=settings.rounds),
        categories=names,
        style_companion=True,
        selector=selector,
    )
    boards: dict[str | None, RatingBoard] = {None: board}
    winners = np.array(selector.column("winner"), dtype=object)
    boards.update(board.categories)
    extra = {
        "min_votes": settings.min_votes,
        "tie_shares": {
            name or "full": tie_shares(winners[selector.positions(name)].tolist())
            for name in boards
        },
        "thin_models": {
            name or "full": thin_models(b, settings.min_votes) for name, b in boards.items()
        },
        "rank_changes": {name or "full": rank_changes(b) for name, b in boards.items()},
        **({"anony": ANONY_NOTE} if settings.anony_assumed else {}),
    }
    return replace(board, settings=replace(board.settings, extra={**board.settings.extra, **extra}))
