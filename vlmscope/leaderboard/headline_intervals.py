"""Every headline number with its 95% interval, or the reason it has none; rank bands.

A track registers where each headline's interval sits in its summary (`Headline.interval`:
MEGA-Bench's two-stage bootstrap, SimpleVQA's bootstrap of the rates, ProBench's official
bounds); a board carries one per model. The Space shows a number with its interval as the
boards do (`85.71 +3.1 / -4.8`: how far it reaches above and below, in the number's own units),
or marks it `(no CI)` and lists why. Tables rank as boards rank: a model's rank is one plus the
number of models whose whole interval lies above its own, so models whose intervals overlap
share a rank (a band), and a model without an interval gets none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.values import is_number, number_at
from vlmscope.shown_numbers import PERCENT_DIGITS, RATING_DIGITS, offsets_text
from vlmscope.tracks.spec import Headline

NO_CI = "(no CI)"
OLD_SUMMARY = (
    "its summary records no interval (written before intervals were recorded, or nothing to "
    "resample)"
)
OLD_SINGLE_IMAGE = (
    "its summary records no single-image interval (written before the single-image subset's "
    "intervals were recorded)"
)


@dataclass(frozen=True)
class Bounds:
    lower: float
    upper: float


def bounds_at(data: object, *keys: str) -> Bounds | None:
    """The interval at `keys`: a `[lower, upper]` pair or a mapping with `lower` and `upper`."""
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    if isinstance(data, list | tuple) and len(data) == 2 and all(map(is_number, data)):
        return Bounds(float(data[0]), float(data[1]))
    if isinstance(data, Mapping) and is_number(data.get("lower")) and is_number(data.get("upper")):
        return Bounds(float(data["lower"]), float(data["upper"]))
    return None


def headline_bounds(record: SummaryRecord | None, headline: Headline) -> Bounds | str | None:
    """The headline's interval for one model's summary, the reason it has none, or None when
    there is no number to speak of."""
    if record is None or number_at(record.scores, *headline.keys) is None:
        return None
    if headline.interval is None:
        return headline.no_interval
    return bounds_at(record.scores, *headline.interval) or OLD_SUMMARY


def rank_bands(bounds: Mapping[str, Bounds]) -> dict[str, int]:
    """1 + the number of models whose lower bound lies above this model's upper bound."""
    return {
        model: 1 + sum(other.lower > own.upper for other in bounds.values())
        for model, own in bounds.items()
    }


def reach_text(value: float, bounds: Bounds, scale: float = 1.0) -> str:
    """`+3.12 / -4.80`: how far the interval reaches above and below the value (times `scale`:
    100 for a 0-1 rate shown in percent), with the digits the number itself is shown with
    (a rate's two, a rating's one), so the reach and the bounds a track page shows agree."""
    digits = PERCENT_DIGITS if scale == 100.0 else RATING_DIGITS
    return offsets_text(scale * (bounds.upper - value), scale * (bounds.lower - value), digits)
