"""Shared access to the judge-verdict goldens (tests/golden/arena), produced by the reference code."""

from __future__ import annotations

from functools import cache

from tests.ratings.arena_golden import GOLDEN_DIR, golden
from vlmscope.ratings.verdict_records import VerdictRecord, read_verdict_records

VERDICTS_FILE = GOLDEN_DIR / "judge_verdicts_small.jsonl"
BASELINE = "gpt-4o-2024-05-13"
GAME_MODES = ("both_games", "first_game_only")

# arena-hard v2 reads one judgment file per model in `glob` order; its style-control bootstrap
# (randint over all rows) therefore depends on the order the files were read in. The golden run
# read them in this order (the no-style board resamples per model and is order-free).
AH_V2_FILE_ORDER = ("step-vis-90b-01", "idefics-2b-02", "yi-vl-11b-00", "gpt-vis-8b-03")

__all__ = ["BASELINE", "GAME_MODES", "VERDICTS_FILE", "golden", "verdict_records"]


@cache
def verdict_records() -> tuple[VerdictRecord, ...]:
    """The 400 records in file order (4 models x 100 prompts)."""
    return tuple(read_verdict_records(VERDICTS_FILE))


@cache
def ah_v2_ordered_records() -> tuple[VerdictRecord, ...]:
    """The records grouped by model in the golden run's file order, file order within a model."""
    rank = {model: i for i, model in enumerate(AH_V2_FILE_ORDER)}
    return tuple(sorted(verdict_records(), key=lambda record: rank[record.model]))
