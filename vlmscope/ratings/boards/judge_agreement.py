"""How far a judge can be trusted: agreement with human labels, and between two boards.

ProBench (Sec. 3.4 and Appendix C) validates its MLLM judge two ways, and both are here:

* **Judge vs humans** (:func:`judge_human_agreement`). Humans rate sampled comparisons on the
  judge's 5-point scale and the paper reports "79.9% agreement" without saying what agreement
  is. Two readings are computed side by side, neither is the headline:

  - *exact agreement*: the human and the judge give the same one of the five labels
    ``A>>B, A>B, A=B, B>A, B>>A``;
  - *direction agreement*: they agree on the direction only, A better (``A>>B``, ``A>B``),
    tie (``A=B``) or B better (``B>A``, ``B>>A``).

  A human label is compared with the judge's verdict on the same game (the same A/B order):
  ``model_first=False`` is the game with the baseline shown as Assistant A
  (``VerdictRecord.judgments[0]``), ``True`` the swapped game (``judgments[1]``).
* **Board vs board** (:func:`board_agreement`). Boards fitted from different judges (or against
  different baselines) are compared by Spearman correlation (the paper's 0.979 / 0.983), with
  Kendall tau, confidence agreement and separability from :func:`compare_leaderboards`.

Human label files are JSON lines (or a JSON array) of objects
``{"uid": ID, "model": NAME, "game": GAME, "label": LABEL}``: ``uid`` (or ``question_id`` /
``uuid``, like verdict files) a string or an integer, ``model`` the judged model, ``game``
``"baseline_first"`` or ``"model_first"`` (ProBench's keys ``"1"`` = baseline as A and ``"0"`` =
model as A are accepted too), ``label`` one of the five labels exactly, in that game's A/B
positions. Other fields (an annotator, a note) are ignored. A bad row, or a second label for the
same ``(uid, model, game)``, is a :class:`BadRowError` naming the file, the line and the field.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlmscope.judges.verdicts import (
    CANONICAL_LABELS,
    STRICT_RULES,
    VerdictRules,
    label_preference,
    parse_verdict,
)
from vlmscope.ratings.boards.agreement import ELO_SCALE, AgreementReport, compare_leaderboards
from vlmscope.ratings.boards.battle_presets import BATTLE_REFERENCES, BattleSettings
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.inputs.row_checks import MISSING_FIELD, BadRowError, check_file, model_name
from vlmscope.ratings.inputs.verdict_records import VerdictRecord

BASELINE_FIRST = "baseline_first"
MODEL_FIRST = "model_first"
GAME_KEYS: Mapping[str, bool] = {BASELINE_FIRST: False, MODEL_FIRST: True, "1": False, "0": True}
"""Accepted ``game`` values -> ``model_first`` (``"1"`` / ``"0"`` are ProBench's keys)."""

BAD_LABEL = "bad_label"
BAD_GAME = "bad_game"
DUPLICATE = "duplicate"
NON_CANONICAL = "non_canonical_label"
"""Reason a judge verdict is not compared: a label the regex admits but ProBench drops (``A<B``)."""

DIRECTIONS = ("A better", "tie", "B better")


def direction(label: str) -> str:
    """``"A better"``, ``"tie"`` or ``"B better"`` for one of the five canonical labels."""
    preference = label_preference(label)
    if preference is None:
        raise ValueError(f"label: {label!r} is not one of {', '.join(CANONICAL_LABELS)}")
    return DIRECTIONS[{1.0: 0, 0.5: 1, 0.0: 2}[preference.a_score]]


@dataclass(frozen=True)
class HumanLabel:
    """One human rating of one game: ``label`` is in that game's A/B positions, and
    ``model_first`` says which game (False: baseline as Assistant A, True: model as A)."""

    uid: str
    model: str
    model_first: bool
    label: str

    def __post_init__(self) -> None:
        if self.label not in CANONICAL_LABELS:
            raise BadRowError(BAD_LABEL, "label", _not_a_label(self.label))

    @property
    def key(self) -> tuple[str, str, bool]:
        return (self.uid, self.model, self.model_first)


def human_label_from_dict(row: Mapping[str, Any]) -> HumanLabel:
    """One row of a label file (see the module docstring); a bad field raises
    :class:`BadRowError` naming it."""
    uid = next(
        (row[key] for key in ("uid", "question_id", "uuid") if row.get(key) is not None), None
    )
    if uid is None or isinstance(uid, bool) or not isinstance(uid, str | int):
        raise BadRowError(
            MISSING_FIELD, "uid", "no uid / question_id / uuid (a string or an integer)"
        )
    model = model_name(row, "model")
    if "game" not in row:
        raise BadRowError(MISSING_FIELD, "game", "absent")
    game = row["game"]
    if not isinstance(game, str) or game not in GAME_KEYS:
        raise BadRowError(BAD_GAME, "game", f"{game!r} is not one of {', '.join(GAME_KEYS)}")
    if "label" not in row:
        raise BadRowError(MISSING_FIELD, "label", "absent")
    label = row["label"]
    if not isinstance(label, str) or label not in CANONICAL_LABELS:
        raise BadRowError(BAD_LABEL, "label", _not_a_label(label))
    return HumanLabel(uid=str(uid), model=model, model_first=GAME_KEYS[game], label=label)


def _not_a_label(label: Any) -> str:
    return f"{label!r} is not one of {', '.join(CANONICAL_LABELS)}"


def read_human_labels(path: str | Path) -> list[HumanLabel]:
    """Human labels of a JSON-lines file (or JSON array), in file order.

    The first bad row raises :class:`BadRowError` (a ``ValueError``) naming the file, the line
    (the index in a JSON array) and the field; so does a second label for one
    ``(uid, model, game)`` (``"baseline_first"`` and ``"1"`` name the same game)."""
    seen: set[tuple[str, str, bool]] = set()

    def build(row: Mapping[str, Any]) -> HumanLabel:
        label = human_label_from_dict(row)
        if label.key in seen:
            game = MODEL_FIRST if label.model_first else BASELINE_FIRST
            raise BadRowError(
                DUPLICATE,
                "uid",
                f"({label.uid!r}, {label.model!r}, {game}) is already labelled by an earlier row",
            )
        seen.add(label.key)
        return label

    return check_file(path, build).rows


@dataclass(frozen=True)
class JudgeHumanAgreement:
    """Counts, the two agreement rates and the confusion table of judge vs human labels.

    ``labels`` = ``compared`` + ``judge_unparseable`` + ``without_record``. The rates are over
    ``compared`` only (NaN, ``null`` in JSON, when nothing was compared)."""

    labels: int
    compared: int
    exact_matches: int
    direction_matches: int
    judge_unparseable: int
    """Labels whose judge game yields none of the five labels; left out of both rates."""
    unparseable_by_reason: Mapping[str, int]
    """``no_judgment``, ``no_label``, ``conflicting_labels``, ``non_canonical_label``."""
    without_record: int
    """Labels for a ``(uid, model)`` that no verdict record has; left out of both rates."""
    confusion: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """``confusion[human][judge]``: counts over the compared labels, all 5 x 5 cells, in the
    rated game's A/B positions."""

    @property
    def exact_agreement(self) -> float:
        """Share of compared labels where judge and human give the same of the five labels."""
        return self.exact_matches / self.compared if self.compared else math.nan

    @property
    def direction_agreement(self) -> float:
        """Share of compared labels where judge and human agree on A better / tie / B better."""
        return self.direction_matches / self.compared if self.compared else math.nan

    def to_json(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "compared": self.compared,
            "exact_matches": self.exact_matches,
            "direction_matches": self.direction_matches,
            "exact_agreement": _finite_or_none(self.exact_agreement),
            "direction_agreement": _finite_or_none(self.direction_agreement),
            "judge_unparseable": self.judge_unparseable,
            "unparseable_by_reason": dict(self.unparseable_by_reason),
            "without_record": self.without_record,
            "confusion": {human: dict(row) for human, row in self.confusion.items()},
        }


def judge_human_agreement(
    records: Sequence[VerdictRecord],
    labels: Sequence[HumanLabel],
    rules: VerdictRules = STRICT_RULES,
) -> JudgeHumanAgreement:
    """Compare each human label with the judge's verdict on the same game.

    The verdict record is the one with the label's ``(uid, model)``; its game is
    ``judgments[1]`` when ``model_first`` else ``judgments[0]``, so the judge label and the
    human label name A and B alike. The judge text is parsed with ``rules`` (ProBench's
    ``STRICT_RULES`` by default) and must give one of the five canonical labels, as ProBench
    requires. A judge verdict that does not (no judgment, no label, conflicting labels, a
    non-canonical spelling such as ``A<B``) is counted under ``judge_unparseable`` by reason and
    left out of both rates: never a tie, never a disagreement. A label without a verdict record
    is counted under ``without_record`` and left out too. Two records with one ``(uid, model)``
    are ambiguous: ``ValueError``.
    """
    by_key: dict[tuple[str, str], VerdictRecord] = {}
    for record in records:
        key = (record.uid, record.model)
        if key in by_key:
            raise ValueError(f"records: two verdict records for uid {key[0]!r}, model {key[1]!r}")
        by_key[key] = record
    confusion = {human: dict.fromkeys(CANONICAL_LABELS, 0) for human in CANONICAL_LABELS}
    unparseable: Counter[str] = Counter()
    without_record = exact = same_direction = 0
    for label in labels:
        matched = by_key.get((label.uid, label.model))
        if matched is None:
            without_record += 1
            continue
        parsed = parse_verdict(matched.judgments[1 if label.model_first else 0], rules)
        if not parsed.parsed:
            unparseable[parsed.outcome.value] += 1
            continue
        if parsed.label not in CANONICAL_LABELS:
            unparseable[NON_CANONICAL] += 1
            continue
        judge = str(parsed.label)
        confusion[label.label][judge] += 1
        exact += judge == label.label
        same_direction += direction(judge) == direction(label.label)
    n_unparseable = sum(unparseable.values())
    return JudgeHumanAgreement(
        labels=len(labels),
        compared=len(labels) - n_unparseable - without_record,
        exact_matches=exact,
        direction_matches=same_direction,
        judge_unparseable=n_unparseable,
        unparseable_by_reason=dict(sorted(unparseable.items())),
        without_record=without_record,
        confusion=confusion,
    )


def pinned_model(board: RatingBoard) -> str | None:
    """The model a board fixes rather than rates: its anchor, else a verdict board's baseline
    (ProBench pins it at 1114, arena-hard v0.1 at 1000 or 1114, arena-hard v2 at 50%), else
    the anchor a battle board's reference preset pins when that model is on the board
    (FastChat: mixtral-8x7b-instruct-v0.1 at 1114)."""
    if board.settings.anchor_model is not None:
        return board.settings.anchor_model
    baseline = board.settings.extra.get("baseline")
    if isinstance(baseline, str) and baseline:
        return baseline
    if board.settings.reference in BATTLE_REFERENCES:
        anchor = BattleSettings(reference=board.settings.reference).anchor()
        if anchor is not None and anchor.model in board.models:
            return anchor.model
    return None


@dataclass(frozen=True)
class BoardAgreement:
    """:class:`AgreementReport` over the models two boards share, and which were left out."""

    report: AgreementReport
    excluded: tuple[str, ...]
    """Shared models left out because both boards pin them (see :func:`pinned_model`)."""
    only_x: tuple[str, ...]
    only_y: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        report = self.report
        return {
            "models": list(report.models),
            "spearman": _finite_or_none(report.spearman),
            "kendall_tau": _finite_or_none(report.kendall_tau),
            "confidence_agreement": _finite_or_none(report.confidence_agreement),
            "separability_x": _finite_or_none(report.separability_x),
            "separability_y": _finite_or_none(report.separability_y),
            "pairwise_accuracy": _finite_or_none(report.pairwise_accuracy),
            "brier": _finite_or_none(report.brier),
            "excluded": list(self.excluded),
            "only_x": list(self.only_x),
            "only_y": list(self.only_y),
        }


def board_agreement(
    board_x: RatingBoard,
    board_y: RatingBoard,
    *,
    exclude_pinned: bool = True,
    scale_x: float = ELO_SCALE,
) -> BoardAgreement:
    """Spearman, Kendall tau, confidence agreement, separability, pairwise accuracy and the
    Brier score (board_y as the reference order) over the shared models.

    Each model is compared by its board ``rating`` with its ``lower`` / ``upper`` bounds (for
    ProBench the printed ints). A model both boards pin (the same baseline at 1114 on two
    ProBench boards) is left out with ``exclude_pinned``: its place is fixed, not judged, on
    both sides, yet it would move the correlation (a pair of golden boards in the tests gives
    Spearman -0.2 without it and 0.0 with it). A model only one board pins
    (boards against different baselines) stays. Fewer than two models left: ``ValueError``.
    A board that ties every model gives NaN correlations.
    """
    pinned = pinned_model(board_x)
    if not exclude_pinned or pinned != pinned_model(board_y):
        pinned = None
    shared = [m for m in board_x.models if m in board_y.models]
    kept = [m for m in shared if m != pinned]
    if len(kept) < 2:
        left_out = f" after leaving out {pinned}, pinned on both" if pinned in shared else ""
        raise ValueError(f"boards: {len(kept)} shared model(s){left_out}; need two to compare")
    report = compare_leaderboards(_bounds(board_x, kept), _bounds(board_y, kept), scale=scale_x)
    return BoardAgreement(
        report=report,
        excluded=tuple(m for m in shared if m == pinned),
        only_x=tuple(m for m in board_x.models if m not in board_y.models),
        only_y=tuple(m for m in board_y.models if m not in board_x.models),
    )


def _bounds(board: RatingBoard, models: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    return {
        m: (board.models[m].rating, board.models[m].lower, board.models[m].upper) for m in models
    }


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
