"""Human-vote boards (VisionArena battles): the direct battles of the two, and the forecast.

Where the two models met, their battles answer the question directly: A's win share (a tie
counts half, as in the rating), with a 95% interval from redrawing those battles and a p-value
against 1/2. Most pairs of a large arena met rarely or never, so the board's own forecast is
given beside it (`vlmscope.ratings.boards.head_to_head`: the rating difference over the
board's bootstrap rounds, redrawn as the board drew them), and is the only number when they
never met.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vlmscope.leaderboard.compare.pairs import (
    POINTS,
    PROBABILITY,
    Compared,
    ListTable,
    PairComparison,
    PairedNumber,
)
from vlmscope.leaderboard.compare.source import board_details, board_holding
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.ratings.boards.head_to_head import NoForecast, battle_fit, head_to_head
from vlmscope.stats.intervals import Interval, interval_of
from vlmscope.stats.paired_counts import resample_cells

TIES = ("tie", "tie (bothbad)")
METHOD = (
    "direct battles: A's win share (ties half), 95% interval from redrawing those battles, "
    "p against 1/2; forecast: P(A beats B) from the board's Bradley-Terry fit over its own "
    "bootstrap rounds"
)


def compare_battles(
    store: ResultStore, track: str, models: Sequence[str], *, rounds: int, seed: int
) -> Compared:
    """Every pair of `models` (in order) on the track's human-vote board, and notes."""
    board = board_holding(store, track, models, "board")
    style = board.settings.style_control
    columns = ["model_a", "model_b", "winner"] + (["record"] if style else [])
    rows = board_details(store, track, columns)
    notes = []
    fit = None
    if not rows:
        notes.append("the board stores no battles: no direct battles, no forecast")
    else:
        records: list[Mapping[str, Any]] = [r["record"] if style else r for r in rows]
        try:
            fit = battle_fit(records, board.settings)
        except (NoForecast, ValueError) as error:
            notes.append(f"no forecast: {error}")
    comparisons = []
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            numbers, table = _direct(rows, a, b, rounds, seed)
            if fit is not None:
                forecast = head_to_head(fit, a, b)
                numbers += [
                    PairedNumber(
                        f"forecast P({a} beats {b})", None, None, forecast.probability, PROBABILITY
                    ),
                    PairedNumber(
                        "rating difference",
                        board.models[a].rating,
                        board.models[b].rating,
                        forecast.rating_difference,
                        POINTS,
                    ),
                ]
            comparisons.append(
                PairComparison(
                    track=track,
                    a=a,
                    b=b,
                    items=f"{len(rows)} battles on the board",
                    method=f"{METHOD}; {rounds} rounds, seed {seed} for the direct share",
                    numbers=tuple(numbers),
                    tables=(table,),
                )
            )
    return Compared(comparisons, notes, {})


def _direct(
    rows: Sequence[Mapping[str, Any]], a: str, b: str, rounds: int, seed: int
) -> tuple[list[PairedNumber], ListTable]:
    counts = np.zeros(3, dtype=np.int64)  # A wins, ties, B wins
    for row in rows:
        pair = (row.get("model_a"), row.get("model_b"))
        if set(pair) != {a, b}:
            continue
        winner = row.get("winner")
        if winner in TIES:
            counts[1] += 1
        elif winner in ("model_a", "model_b"):
            a_won = (winner == "model_a") == (pair[0] == a)
            counts[0 if a_won else 2] += 1
    n = int(counts.sum())
    table = ListTable(
        title="Direct battles",
        columns=("battles", f"{a} wins", "ties", f"{b} wins"),
        rows=((n, int(counts[0]), int(counts[1]), int(counts[2])),),
    )
    if n == 0:
        return [
            PairedNumber(
                f"{a}'s win share in direct battles",
                None,
                None,
                None,
                PROBABILITY,
                note="they never met",
            )
        ], table
    rng = np.random.default_rng([seed, zlib.crc32(f"{a}\n{b}".encode())])
    drawn = resample_cells(counts, rounds=rounds, rng=rng)
    shares = (drawn[:, 0] + 0.5 * drawn[:, 1]) / n
    share = float((counts[0] + 0.5 * counts[1]) / n)
    estimate = interval_of(share, shares)
    tested = interval_of(share - 0.5, shares - 0.5, test=True)
    estimate = Interval(estimate.value, estimate.lower, estimate.upper, tested.p_value)
    return [
        PairedNumber(f"{a}'s win share in direct battles", None, None, estimate, PROBABILITY)
    ], table
