"""ProBench's numbers from judged verdicts: its own table per model, and our joint board.

- `official_tables`: what ProBench's `show_result.py` prints for ONE model, per track and per
  breakdown: a style-controlled Bradley-Terry fit of that model against the baseline alone
  (baseline pinned at 1114, `>>` counted 3 times, 100 bootstrap rounds with seed 42), the
  int-truncated score and 2.5/97.5 percentiles, the win rate computed from the truncated score,
  and the average answer tokens (`vlmscope.ratings.boards.judged_boards.probench_board`).
- `joint_board`: every model of the run and the baseline in ONE style-controlled fit (the same
  math on all verdicts at once), so ratings are comparable between models; one category board
  per track and breakdown.

A subset that cannot be fitted (too few verdicts, a style feature that never varies) is listed
with the reason, never shown as a number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from vlmscope.ratings.boards.board import RatingBoard, with_categories
from vlmscope.ratings.boards.judged_boards import probench_board
from vlmscope.ratings.boards.verdict_presets import ARENA_HARD_V01, VerdictSettings, verdict_board
from vlmscope.ratings.inputs.verdict_records import VerdictRecord
from vlmscope.tracks.probench.breakdowns import subsets


@dataclass(frozen=True)
class Subsets:
    """Which uids fall in which subset (`singleround`, `multi-round / round: 4`, ...)."""

    members: Mapping[str, frozenset[str]]

    @classmethod
    def of(
        cls, chat_types: Mapping[str, str], breakdowns: Mapping[str, Mapping[str, str]]
    ) -> Subsets:
        return cls({k: frozenset(v) for k, v in subsets(chat_types, breakdowns).items()})

    def select(self, records: Sequence[VerdictRecord], key: str) -> list[VerdictRecord]:
        uids = self.members[key]
        return [r for r in records if r.uid in uids]


def official_entry(
    records: Sequence[VerdictRecord], model: str, settings: VerdictSettings
) -> dict[str, Any]:
    """ProBench's printed line for `model` on `records` (one subset), with what went in."""
    result = probench_board(
        records,
        model,
        settings.baseline,
        settings.weight,
        settings.first_game_only,
        settings.rounds,
        settings.seed,
    )
    board = result.board
    return {
        "score": result.score_int[model],
        "lower": result.lower_int[model],
        "upper": result.upper_int[model],
        "win_rate": result.win_rate_pct[model],
        "avg_tokens": result.avg_tokens[model],
        "baseline_avg_tokens": result.avg_tokens[settings.baseline],
        "prompts": len({r.uid for r in records if r.model == model}),
        "battle_rows": board.n_battle_rows,
        "unparseable_games": result.unparseable,
        "score_float": board.score[model],
        "lower_float": board.lower[model],
        "upper_float": board.upper[model],
        "style_coefficients": list((board.style_coef or {}).values()),
        "winner_counts": board.winner_counts,
    }


@dataclass(frozen=True)
class OfficialTables:
    tracks: dict[str, dict[str, Any]]
    breakdowns: dict[str, dict[str, dict[str, dict[str, Any]]]]
    skipped: dict[str, str]


def official_tables(
    records: Sequence[VerdictRecord],
    model: str,
    settings: VerdictSettings,
    subsets_of: Subsets,
    *,
    with_breakdowns: bool = True,
) -> OfficialTables:
    """ProBench's table for one model on every track present and, if asked, every breakdown."""
    tables = OfficialTables({}, {}, {})
    for key in subsets_of.members:
        chat_type, _, rest = key.partition(" / ")
        if rest and not with_breakdowns:
            continue
        chosen = subsets_of.select(records, key)
        try:
            entry = official_entry(chosen, model, settings)
        except ValueError as error:  # FitError included: no verdicts, a constant feature, ...
            tables.skipped[key] = str(error)
            continue
        if not rest:
            tables.tracks[chat_type] = entry
            continue
        dimension, _, value = rest.partition(": ")
        tables.breakdowns.setdefault(chat_type, {}).setdefault(dimension, {})[value] = entry
    return tables


def joint_settings(settings: VerdictSettings) -> VerdictSettings:
    """The joint fit: ProBench's math (style control, baseline 1114) on all models at once."""
    return replace(settings, reference=ARENA_HARD_V01, style_control=True, category=None)


def joint_board(
    records: Sequence[VerdictRecord],
    settings: VerdictSettings,
    subsets_of: Subsets,
    *,
    with_breakdowns: bool = True,
) -> RatingBoard:
    """All models in one fit, with one category board per track and breakdown."""
    joint = joint_settings(settings)
    board = verdict_board(records, joint)
    boards: dict[str, RatingBoard] = {}
    skipped: dict[str, str] = {}
    for key in subsets_of.members:
        if " / " in key and not with_breakdowns:
            continue
        try:
            boards[key] = verdict_board(subsets_of.select(records, key), joint)
        except ValueError as error:
            skipped[key] = str(error)
    return with_categories(board, boards, skipped)
