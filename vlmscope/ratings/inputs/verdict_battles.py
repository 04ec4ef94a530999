"""Turn judge-vs-baseline verdict records into battles (or per-row scores) like the references.

Two shapes come out, because the references consume verdicts in two ways:

* :func:`battles_from_verdicts` (ProBench ``get_battles_from_row``, arena-hard-auto v0.1): every
  battle has ``model_a`` = baseline, ``model_b`` = judged model. Game 1 (baseline shown as A)
  reads labels as they are; game 2 (model shown as A) flips them. A strong verdict (``>>``) is
  repeated ``weight`` times as separate rows, so bootstraps resample the copies independently
  (a reference quirk kept on purpose). A game whose label is missing, conflicting or not one of
  the five canonical labels is dropped; the other game of the prompt still counts.
* :func:`scores_from_verdicts` (arena-hard-auto v2 ``load_judgments``): the whole record is
  dropped when either game has no label; otherwise game 2 contributes the label's score for A
  and game 1 contributes ``1 - score``, each repeated ``weight`` times for strong labels.

Every dropped game or record is kept in ``excluded`` with its reason, so a summary can show how
many judgments could not be used; an unparseable verdict is never turned into a tie.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from vlmscope.judges.verdicts import (
    LAST_MATCH_RULES,
    STRICT_RULES,
    ParsedVerdict,
    VerdictRules,
    label_preference,
    parse_verdict,
)
from vlmscope.ratings.inputs.row_checks import RowPlace
from vlmscope.ratings.inputs.verdict_records import AnswerStyle, VerdictRecord

DEFAULT_STRONG_WEIGHT = 3
NON_CANONICAL = "non_canonical_label"
OTHER_GAME_UNPARSEABLE = "other_game_unparseable"


@dataclass(frozen=True)
class JudgedBattle:
    """One battle row: baseline is always ``model_a``; winner is model_a, model_b or tie."""

    uid: str
    model_a: str
    model_b: str
    winner: str
    style_a: AnswerStyle | None = None
    style_b: AnswerStyle | None = None


@dataclass(frozen=True)
class JudgedScore:
    """One arena-hard v2 row: the judged model's score (1, 0.5, 0) against the baseline."""

    uid: str
    model: str
    baseline: str
    score: float
    category: str | None = None
    model_style: AnswerStyle | None = None
    baseline_style: AnswerStyle | None = None
    place: RowPlace | None = field(default=None, compare=False)
    """Where its verdict record was read, to name it when its metadata cannot be scored."""


@dataclass(frozen=True)
class ExcludedJudgment:
    """A game (0: baseline as A, 1: model as A) the reference drops, and why."""

    uid: str
    model: str
    game: int
    reason: str
    label: str | None = None


RowT = TypeVar("RowT", JudgedBattle, JudgedScore)


@dataclass
class JudgedRows(Generic[RowT]):
    """Usable rows plus everything excluded, so nothing disappears silently."""

    rows: list[RowT]
    excluded: list[ExcludedJudgment] = field(default_factory=list)
    parsed: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)

    @property
    def unparseable(self) -> int:
        """Games that yielded no usable label (a dropped record's readable game not counted)."""
        return sum(1 for item in self.excluded if item.reason != OTHER_GAME_UNPARSEABLE)

    def excluded_by_reason(self) -> dict[str, int]:
        return dict(Counter(item.reason for item in self.excluded))


# Winner of each game for an A-score of 1 / 0.5 / 0; game 2 shows the model as A, so it flips.
_WINNER_GAME1 = {1.0: "model_a", 0.5: "tie", 0.0: "model_b"}
_WINNER_GAME2 = {1.0: "model_b", 0.5: "tie", 0.0: "model_a"}


def battles_from_verdicts(
    records: Sequence[VerdictRecord],
    weight: int = DEFAULT_STRONG_WEIGHT,
    first_game_only: bool = False,
    rules: VerdictRules = STRICT_RULES,
) -> JudgedRows[JudgedBattle]:
    """Battles in the reference order: per record, game 1 rows then game 2 rows."""
    result: JudgedRows[JudgedBattle] = JudgedRows(rows=[])
    battles = result.rows
    for record in records:
        verdicts = [parse_verdict(text, rules) for text in record.judgments]
        result.parsed.append((record.model, record.uid, verdicts[0].label, verdicts[1].label))
        for game, winners in enumerate((_WINNER_GAME1, _WINNER_GAME2)):
            if first_game_only and game == 1:
                break
            preference = label_preference(verdicts[game].label, accept_mirrored=False)
            if preference is None:
                result.excluded.append(_exclusion(record, game, verdicts[game]))
                continue
            battle = JudgedBattle(
                uid=record.uid,
                model_a=record.baseline,
                model_b=record.model,
                winner=winners[preference.a_score],
                style_a=record.baseline_style,
                style_b=record.model_style,
            )
            battles.extend([battle] * (weight if preference.strong else 1))
    return result


def scores_from_verdicts(
    records: Sequence[VerdictRecord],
    weight: int = DEFAULT_STRONG_WEIGHT,
    rules: VerdictRules = LAST_MATCH_RULES,
) -> JudgedRows[JudgedScore]:
    """Exploded per-row scores for the judged model, arena-hard v2 style (see module doc)."""
    result: JudgedRows[JudgedScore] = JudgedRows(rows=[])
    scores = result.rows
    for record in records:
        verdicts = [parse_verdict(text, rules) for text in record.judgments]
        result.parsed.append((record.model, record.uid, verdicts[0].label, verdicts[1].label))
        preferences = [label_preference(v.label, accept_mirrored=True) for v in verdicts]
        if preferences[0] is None or preferences[1] is None:
            for game, preference in enumerate(preferences):
                if preference is None:
                    result.excluded.append(_exclusion(record, game, verdicts[game]))
                else:
                    result.excluded.append(
                        ExcludedJudgment(record.uid, record.model, game, OTHER_GAME_UNPARSEABLE)
                    )
            continue
        model_as_a, baseline_as_a = preferences[1], preferences[0]
        values = [model_as_a.a_score] * (weight if model_as_a.strong else 1)
        values += [1.0 - baseline_as_a.a_score] * (weight if baseline_as_a.strong else 1)
        scores.extend(
            JudgedScore(
                uid=record.uid,
                model=record.model,
                baseline=record.baseline,
                score=value,
                category=record.category,
                model_style=record.model_style,
                baseline_style=record.baseline_style,
                place=record.place,
            )
            for value in values
        )
    return result


def _exclusion(record: VerdictRecord, game: int, verdict: ParsedVerdict) -> ExcludedJudgment:
    reason = verdict.outcome.value if not verdict.parsed else NON_CANONICAL
    return ExcludedJudgment(record.uid, record.model, game, reason, verdict.label)
