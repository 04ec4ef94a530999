"""What the judging of a (model, track) says about the judge, added to its summary and board.

Every pairwise track (the samples' details hold two games per prompt, `PairwiseEvidence`) gets
its judge's swap consistency (`vlmscope.tracks.swap_consistency`): in each model's summary under
`consistency`, and on the track's joint board under `settings.extra["consistency"]` (per model
and `overall`), which the Space's track page shows. A judge panel's member verdicts
(`vlmscope.judges.panel`) give each member's agreement with the panel and the verdicts'
stability over repeats, under `panel`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from vlmscope.judges.call_log import Call
from vlmscope.judges.panel_stats import panel_facts
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.tracks.base import ModelResult, Scored
from vlmscope.tracks.pairwise import PairwiseEvidence
from vlmscope.tracks.swap_consistency import combined, consistency

CONSISTENCY = "consistency"
PANEL = "panel"


def _games(scored: Sequence[Scored]) -> list[Sequence[Mapping[str, Any]]]:
    return [e.games for s in scored if (e := PairwiseEvidence.from_extra(s.extra)) is not None]


def judge_facts(scored: Sequence[Scored], judged: Sequence[Call] = ()) -> dict[str, Any]:
    """`consistency` for a pairwise track's judged prompts, `panel` for a panel's calls."""
    facts: dict[str, Any] = {}
    if (found := consistency(_games(scored))) is not None:
        facts[CONSISTENCY] = found
    if (panel := panel_facts(judged)) is not None:
        facts[PANEL] = panel
    return facts


def with_consistency(board: RatingBoard, results: Mapping[str, ModelResult]) -> RatingBoard:
    """`board` with its judge's consistency per judged model and over all of them."""
    models = {
        model: found
        for model, result in sorted(results.items())
        if (found := consistency(_games(result.scored))) is not None
    }
    overall = combined(models.values())
    if overall is None:
        return board
    extra = {**board.settings.extra, CONSISTENCY: {"overall": overall, "models": models}}
    return replace(board, settings=replace(board.settings, extra=extra))
