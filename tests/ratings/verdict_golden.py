"""Shared access to the judge-verdict goldens (tests/golden/arena), produced by the reference code."""

from __future__ import annotations

from functools import cache

from tests.ratings.arena_golden import GOLDEN_DIR, golden
from vlmscope.ratings.inputs.verdict_records import VerdictRecord, read_verdict_records
from vlmscope.tracks.base import Scored

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


def judged_sample(
    record: VerdictRecord, template: str, category: str | None, *, with_model: bool = False
) -> Scored:
    """What a pairwise track's `score` leaves for a judged prompt, made from a golden record:
    both games' judge replies and both answers' style metadata (and the model's name)."""
    from vlmscope.ratings.inputs.verdict_records import STYLE_FIELDS
    from vlmscope.tracks.pairwise import PairwiseEvidence
    from vlmscope.tracks.probench.judging import game_record

    assert record.model_style is not None and record.baseline_style is not None
    evidence = PairwiseEvidence(
        baseline=record.baseline,
        template=template,
        games=(
            game_record(record.judgments[0], model_first=False),
            game_record(record.judgments[1], model_first=True),
        ),
        model_style=dict(zip(STYLE_FIELDS, record.model_style.as_tuple(), strict=True)),
        baseline_style=dict(zip(STYLE_FIELDS, record.baseline_style.as_tuple(), strict=True)),
        category=category,
    )
    extra = evidence.to_extra()
    return Scored(record.uid, {}, extra={**extra, "model": record.model} if with_model else extra)
