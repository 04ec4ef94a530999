"""Tracks judged against a baseline (ProBench, VisionArena-Bench): who beats whom, and where.

Both models were judged against the same baseline, so they meet only through the track's joint
board (one Bradley-Terry fit over every model of the run). The comparison is that board's
forecast of A beating B, with the interval of the rating difference over the board's own
bootstrap rounds, redrawn as the board drew them (`vlmscope.ratings.boards.head_to_head`), for
the whole board and for each top-level category board (ProBench's three tracks,
VisionArena-Bench's categories); its p-value tests "equally strong". Beside it, the prompts on
which the two models' games against the baseline point different ways: each model's verdicts
read from its own side (two games, positions swapped), its outcome the mean over the games the
judge's reply could be read for. The refit is made once per state of the board's files
(`board_fits.py`), whichever pair is compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlmscope.judges.verdicts import STRICT_RULES, label_preference, parse_verdict
from vlmscope.leaderboard.compare.alignment import align
from vlmscope.leaderboard.compare.board_fits import board_fits
from vlmscope.leaderboard.compare.pairs import (
    POINTS,
    PROBABILITY,
    Compared,
    ListTable,
    PairComparison,
    PairedNumber,
)
from vlmscope.leaderboard.compare.source import board_holding
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.boards.head_to_head import head_to_head
from vlmscope.ratings.fits.bootstrap import BootstrapResult
from vlmscope.ratings.inputs.verdict_records import VerdictRecord

WORDS = {1.0: "better", 0.5: "tie", 0.0: "worse"}
STRONG = {1.0: "much better", 0.0: "much worse"}
METHOD = (
    "P(A beats B) from the joint board's Bradley-Terry fit, 95% interval over the board's own "
    "bootstrap rounds (redrawn with its reference, seed and rounds); p tests equal strength"
)


def compare_judged(store: ResultStore, track: str, models: Sequence[str], **_: Any) -> Compared:
    """Every pair of `models` (in order) on the track's joint board, notes, missing prompts."""
    board = board_holding(store, track, models, "joint board")
    fitted = board_fits(store, track, board)
    records, fits, notes = fitted.records, fitted.fits, list(fitted.notes)
    mine = {m: {r.uid: r for r in records if r.model == m} for m in models}
    alignment = align({m: list(found) for m, found in mine.items()})
    notes += list(alignment.notes("prompts"))
    comparisons = []
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            numbers = _numbers(fits, board, a, b)
            disagree = _disagreements(mine[a], mine[b], alignment.shared)
            comparisons.append(
                PairComparison(
                    track=track,
                    a=a,
                    b=b,
                    items=f"{len(alignment.shared)} prompts judged for every model compared, "
                    f"against {board.settings.extra.get('baseline', 'the baseline')}",
                    method=METHOD,
                    numbers=tuple(numbers),
                    tables=(disagree,),
                )
            )
    return Compared(comparisons, notes, alignment.missing)


def _numbers(
    fits: dict[str, BootstrapResult], board: RatingBoard, a: str, b: str
) -> list[PairedNumber]:
    numbers = []
    for category, fit in fits.items():
        section = f"category: {category}" if category else ""
        if a not in fit.models or b not in fit.models:
            numbers.append(
                PairedNumber(
                    f"P({a} beats {b})",
                    None,
                    None,
                    None,
                    PROBABILITY,
                    section,
                    "not both rated here",
                )
            )
            continue
        forecast = head_to_head(fit, a, b)
        numbers.append(
            PairedNumber(
                f"P({a} beats {b})", None, None, forecast.probability, PROBABILITY, section
            )
        )
        if not category:
            rating = board.models
            numbers.append(
                PairedNumber(
                    "rating difference",
                    rating[a].rating,
                    rating[b].rating,
                    forecast.rating_difference,
                    POINTS,
                )
            )
    return numbers


def games_view(judgments: Sequence[str | None]) -> tuple[str, float | None]:
    """A model's two games on one prompt (baseline as A, then model as A) from the model's side
    ("much better, tie"), and its outcome against the baseline (the mean over readable games:
    1 win, 0.5 tie, 0 loss)."""
    words, scores = [], []
    for game, judgment in enumerate(judgments):
        preference = label_preference(parse_verdict(judgment, STRICT_RULES).label)
        if preference is None:
            words.append("unreadable")
            continue
        mine = preference.a_score if game == 1 else 1.0 - preference.a_score  # game 2: model is A
        words.append(STRONG[mine] if preference.strong else WORDS[mine])
        scores.append(mine)
    return ", ".join(words), sum(scores) / len(scores) if scores else None


def _outcome(score: float | None) -> str:
    if score is None:
        return "unreadable"
    return "win" if score > 0.5 else "tie" if score == 0.5 else "loss"


def _disagreements(
    a: dict[str, VerdictRecord], b: dict[str, VerdictRecord], shared: Sequence[str]
) -> ListTable:
    rows = []
    for uid in shared:
        view_a, view_b = games_view(a[uid].judgments), games_view(b[uid].judgments)
        if _outcome(view_a[1]) != _outcome(view_b[1]):
            category = a[uid].category or ""
            rows.append(
                (uid, category, view_a[0], _outcome(view_a[1]), view_b[0], _outcome(view_b[1]))
            )
    return ListTable(
        title="Prompts where the two models' games against the baseline disagree",
        columns=("prompt", "category", "A's games", "A vs baseline", "B's games", "B vs baseline"),
        rows=tuple(rows),
    )
