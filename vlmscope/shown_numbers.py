"""How a 0-1 rate and a rating are written for people, with one number of decimals each,
everywhere.

The run's tables (a track's Markdown beside its result dataset), the leaderboard Space and
`vlmscope compare` all show the same rates; they read the rule here so one F reads the same in
each (`33.33`, never `33.3` in one place and `33.33` in another). A joint board's rating reads
the same in the run's terminal table, the Space's tables and `compare` (`1187.1`), an amount
of money the same in the run's ledger and the Space's cost table, and an average answer length
as the references print it. Stored numbers are never rounded by it:
summaries keep what the scorer computed.
"""

from __future__ import annotations

PERCENT_DIGITS = 2
"""Decimals of a rate shown in percent (a win rate already in percent too)."""


RATING_DIGITS = 1
"""Decimals of a rating (Bradley-Terry or Elo points) and of its interval's bounds."""


def rating_number(value: float) -> float:
    """A rating rounded as it is shown (`1187.07` -> `1187.1`; a negative zero as 0)."""
    return round(value, RATING_DIGITS) + 0.0


def percent_number(value: float) -> float:
    """A 0-1 rate in percent rounded as it is shown (`0.33333` -> `33.33`; a negative zero as 0)."""
    return round(100 * value, PERCENT_DIGITS) + 0.0


def percent_text(value: float) -> str:
    """A 0-1 rate as percent text with the shown digits (`0.3333` -> `33.33`); what rounds to
    zero reads `0.00`, never `-0.00` (a tie computed as a difference)."""
    return f"{percent_number(value):.{PERCENT_DIGITS}f}"


def offsets_text(above: float, below: float, digits: int) -> str:
    """`+36.4 / -19.6`: how far an interval's upper and lower bounds lie from its number
    (`upper - value`, `lower - value`), with the number's own digits.

    Each reach keeps its sign: a point estimate may fall outside its bootstrap interval when
    samples are few, and `+3.1 / +0.4` then says the lower bound lies 0.4 above the number
    (a fixed `-` before the lower reach would print `--0.4`, or a clamp would hide it). A reach
    that rounds to zero reads with its side's sign: `+0.0` above, `-0.0` below."""
    return f"{_signed(above, digits, '+')} / {_signed(below, digits, '-')}"


def _signed(value: float, digits: int, zero_sign: str) -> str:
    rounded = round(value, digits) + 0.0
    return f"{zero_sign}{0:.{digits}f}" if rounded == 0 else f"{rounded:+.{digits}f}"


def token_count(value: float) -> int:
    """An average answer length in whole tokens, truncated as the references print it
    (`int(...)` in arena-hard-auto's and ProBench's `show_result.py`): 38.7 reads 38."""
    return int(value)


def money_digits(value: float) -> int:
    """Decimals of an amount of money: four below 100 (a run of a few requests costs cents or
    less), two from 100 on."""
    return 4 if abs(value) < 100 else 2


def money_number(value: float) -> float:
    """An amount rounded as it is shown (`0.0010932` -> `0.0011`)."""
    return round(value, money_digits(value)) + 0.0
