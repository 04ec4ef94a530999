"""Judge checks of ProBench: judge vs human labels, and board vs board agreement.

The label cases are small and counted by hand; the board cases fit the golden verdict file and a
copy in which one model's verdicts are mirrored, whose rank correlation is worked out below."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.ratings.verdict_golden import BASELINE, verdict_records
from vlmscope.judges.verdicts import CANONICAL_LABELS
from vlmscope.ratings.boards.board import BoardSettings, ModelRating, RatingBoard
from vlmscope.ratings.boards.judge_agreement import (
    HumanLabel,
    board_agreement,
    direction,
    judge_human_agreement,
    read_human_labels,
)
from vlmscope.ratings.boards.verdict_presets import PROBENCH, VerdictSettings, verdict_board
from vlmscope.ratings.inputs.row_checks import BadRowError
from vlmscope.ratings.inputs.verdict_records import VerdictRecord

MODEL, BASE = "m", "b"
FLIPPED_MODEL = "yi-vl-11b-00"  # best on the golden ProBench board (1574), worst once mirrored


def verdict(label: str) -> str:
    return f"Both answers are fine.\n\nMy final verdict is: [[{label}]]"


def record(uid: str, first: str | None, second: str | None, model: str = MODEL) -> VerdictRecord:
    """``first``: the game with the baseline as A; ``second``: the model as A."""
    return VerdictRecord(uid=uid, model=model, baseline=BASE, judgments=(first, second))


def human(uid: str, model_first: bool, label: str, model: str = MODEL) -> HumanLabel:
    return HumanLabel(uid=uid, model=model, model_first=model_first, label=label)


RECORDS = [
    record("u1", verdict("A>>B"), verdict("B>A")),
    record("u2", verdict("A>B"), "I cannot decide."),
    record("u3", None, "[[A>B]] ... on reflection [[B>A]]"),
    record("u4", verdict("A<B"), verdict("A=B")),
]
LABELS = [
    human("u1", False, "A>B"),  # judge A>>B: direction only
    human("u1", True, "B>A"),  # judge B>A: exact
    human("u2", False, "A=B"),  # judge A>B: neither
    human("u2", True, "A>B"),  # judge text without a label: unparseable (no_label)
    human("u3", False, "B>>A"),  # judgment null: unparseable (no_judgment)
    human("u3", True, "A>B"),  # two labels: unparseable (conflicting_labels)
    human("u4", False, "B>A"),  # A<B is no ProBench label: unparseable (non_canonical_label)
    human("u4", True, "B>>A"),  # judge A=B: neither
    human("u9", False, "A>B"),  # no such uid
    human("u1", False, "A>B", model="other"),  # no such model for u1
]


def test_exact_and_direction_agreement_are_counted_apart() -> None:
    result = judge_human_agreement(RECORDS, LABELS)
    assert result.labels == 10
    assert result.without_record == 2
    assert result.judge_unparseable == 4
    assert result.unparseable_by_reason == {
        "conflicting_labels": 1,
        "no_judgment": 1,
        "no_label": 1,
        "non_canonical_label": 1,
    }
    assert result.compared == 4
    assert (result.exact_matches, result.direction_matches) == (1, 2)
    assert result.exact_agreement == pytest.approx(1 / 4)
    assert result.direction_agreement == pytest.approx(2 / 4)


def test_unparseable_verdicts_are_not_ties_or_disagreements() -> None:
    # Every human says tie; a judge that said nothing must not match (tie) nor miss (disagree).
    records = [record("u1", "no verdict here", None), record("u2", verdict("A=B"), verdict("B>A"))]
    labels = [human("u1", False, "A=B"), human("u1", True, "A=B"), human("u2", False, "A=B")]
    result = judge_human_agreement(records, labels)
    assert (result.compared, result.judge_unparseable) == (1, 2)
    assert (result.exact_agreement, result.direction_agreement) == (1.0, 1.0)
    assert sum(sum(row.values()) for row in result.confusion.values()) == 1


def test_nothing_compared_gives_no_rate() -> None:
    result = judge_human_agreement([record("u1", None, None)], [human("u1", True, "A>B")])
    assert result.compared == 0
    assert math.isnan(result.exact_agreement) and math.isnan(result.direction_agreement)
    payload = result.to_json()
    assert payload["exact_agreement"] is None and payload["direction_agreement"] is None
    json.dumps(payload, allow_nan=False)


def test_each_label_is_compared_with_the_game_it_rates() -> None:
    # A consistent judge: the baseline is much better in both games. Humans agree, each label
    # written in its own game's A/B positions.
    records = [record("u1", verdict("A>>B"), verdict("B>>A"))]
    right = [human("u1", False, "A>>B"), human("u1", True, "B>>A")]
    result = judge_human_agreement(records, right)
    assert (result.exact_matches, result.direction_matches, result.compared) == (2, 2, 2)
    # The same labels attached to the other game read as the opposite preference.
    wrong = [replace(label, model_first=not label.model_first) for label in right]
    result = judge_human_agreement(records, wrong)
    assert (result.exact_matches, result.direction_matches, result.compared) == (0, 0, 2)


def test_confusion_table_is_human_by_judge() -> None:
    result = judge_human_agreement(RECORDS, LABELS)
    assert list(result.confusion) == list(CANONICAL_LABELS)
    assert all(list(row) == list(CANONICAL_LABELS) for row in result.confusion.values())
    nonzero = {(h, j): n for h, row in result.confusion.items() for j, n in row.items() if n != 0}
    assert nonzero == {("A>B", "A>>B"): 1, ("B>A", "B>A"): 1, ("A=B", "A>B"): 1, ("B>>A", "A=B"): 1}
    assert result.to_json()["confusion"]["A>B"]["A>>B"] == 1


def test_direction_of_each_label() -> None:
    assert [direction(label) for label in CANONICAL_LABELS] == [
        "A better",
        "A better",
        "tie",
        "B better",
        "B better",
    ]
    with pytest.raises(ValueError, match="A<B"):
        direction("A<B")


def test_two_records_for_one_prompt_and_model_are_ambiguous() -> None:
    records = [record("u1", verdict("A>B"), None), record("u1", verdict("B>A"), None)]
    with pytest.raises(ValueError, match="two verdict records for uid 'u1'"):
        judge_human_agreement(records, [human("u1", False, "A>B")])


def write_lines(path: Path, rows: Sequence[Any]) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_read_labels_both_game_spellings(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "labels.jsonl",
        [
            {"uid": "u1", "model": MODEL, "game": "baseline_first", "label": "A>B"},
            {"uid": 7, "model": MODEL, "game": "model_first", "label": "B>>A", "annotator": 3},
            {"uuid": "u2", "model": MODEL, "game": "1", "label": "A=B"},
            {"question_id": "u2", "model": MODEL, "game": "0", "label": "B>A"},
        ],
    )
    assert read_human_labels(path) == [
        human("u1", False, "A>B"),
        human("7", True, "B>>A"),
        human("u2", False, "A=B"),
        human("u2", True, "B>A"),
    ]


GOOD = {"uid": "u1", "model": MODEL, "game": "baseline_first", "label": "A>B"}


@pytest.mark.parametrize(
    ("bad", "field", "reason"),
    [
        ({**GOOD, "label": "[[A>B]]"}, "label", "bad_label"),
        ({**GOOD, "label": "a>b"}, "label", "bad_label"),
        ({**GOOD, "label": None}, "label", "bad_label"),
        ({k: v for k, v in GOOD.items() if k != "label"}, "label", "missing_field"),
        ({**GOOD, "game": "first"}, "game", "bad_game"),
        ({**GOOD, "game": 1}, "game", "bad_game"),
        ({k: v for k, v in GOOD.items() if k != "game"}, "game", "missing_field"),
        ({**GOOD, "model": ""}, "model", "missing_model"),
        ({k: v for k, v in GOOD.items() if k != "uid"}, "uid", "missing_field"),
        ({**GOOD, "uid": True}, "uid", "missing_field"),
        ({**GOOD, "uid": "u0", "game": "1"}, "uid", "duplicate"),  # line 1 is u0's game "1"
        ("{not json", None, "not_json"),
    ],
)
def test_bad_label_rows_name_file_line_and_field(
    tmp_path: Path, bad: Any, field: str | None, reason: str
) -> None:
    first = {**GOOD, "uid": "u0"}
    path = write_lines(tmp_path / "labels.jsonl", [first, "", bad])
    with pytest.raises(BadRowError) as caught:
        read_human_labels(path)
    error = caught.value
    assert (error.field, error.reason) == (field, reason)
    assert error.place is not None and (error.place.source, error.place.line) == (str(path), 3)
    assert f"{path} line 3" in str(error)


def test_a_label_must_be_canonical_in_memory_too() -> None:
    with pytest.raises(BadRowError, match="'A<B' is not one of"):
        human("u1", False, "A<B")


# --- board vs board ------------------------------------------------------------------------

_MIRROR = {"A>>B": "B>>A", "A>B": "B>A", "B>A": "A>B", "B>>A": "A>>B"}


def mirror_verdict(text: str | None) -> str | None:
    """The judgment with every canonical [[label]] swapped to the opposite preference."""
    if text is None:
        return None
    return re.sub(r"\[\[(A>>B|A>B|B>A|B>>A)\]\]", lambda m: f"[[{_MIRROR[m.group(1)]}]]", text)


def mirrored(records: Sequence[VerdictRecord], model: str) -> list[VerdictRecord]:
    """``records`` with ``model``'s verdicts mirrored in both games (the others untouched)."""
    return [
        replace(r, judgments=(mirror_verdict(r.judgments[0]), mirror_verdict(r.judgments[1])))
        if r.model == model
        else r
        for r in records
    ]


def mirror_verdict_row(row: dict[str, Any]) -> dict[str, Any]:
    """One golden file row with its verdicts mirrored when it is ``FLIPPED_MODEL``'s."""
    if row["model"] != FLIPPED_MODEL:
        return row
    games = [{**game, "judgment": mirror_verdict(game["judgment"])} for game in row["games"]]
    return {**row, "games": games}


def probench(records: Sequence[VerdictRecord]) -> RatingBoard:
    return verdict_board(records, VerdictSettings(reference=PROBENCH, baseline=BASELINE))


def test_mirroring_swaps_labels_only() -> None:
    assert mirror_verdict("x [[A>>B]] y") == "x [[B>>A]] y"
    assert mirror_verdict("[[A=B]] [[B>A]]") == "[[A=B]] [[A>B]]"
    assert mirror_verdict("[[A<B]]") == "[[A<B]]"


def test_identical_boards_agree_fully_without_the_pinned_baseline() -> None:
    board = probench(verdict_records())
    result = board_agreement(board, probench(verdict_records()))
    assert result.excluded == (BASELINE,)
    assert BASELINE not in result.report.models and len(result.report.models) == 4
    assert result.report.spearman == pytest.approx(1.0)
    assert result.report.kendall_tau == pytest.approx(1.0)
    assert (result.only_x, result.only_y) == ((), ())


def test_a_mirrored_model_moves_the_correlation_as_worked_out() -> None:
    x = probench(verdict_records())
    y = probench(mirrored(verdict_records(), FLIPPED_MODEL))
    # x: yi 1574 > step 1100 > idefics 951 > gpt-vis 867 (baseline 1114 between yi and step).
    # y: the others' per-model fits are unchanged; yi falls below them all.
    assert list(x.models)[0] == FLIPPED_MODEL and list(y.models)[-1] == FLIPPED_MODEL
    for name in x.models:
        if name != FLIPPED_MODEL:
            assert x.models[name].rating == y.models[name].rating
    # Ranks x (yi, step, idefics, gpt-vis) = 1 2 3 4, y = 4 1 2 3: sum d^2 = 9 + 1 + 1 + 1,
    # rho = 1 - 6 * 12 / (4 * 15) = -0.2; 3 of 6 pairs concordant: tau = 0.
    result = board_agreement(x, y)
    assert result.report.spearman == pytest.approx(-0.2)
    assert result.report.kendall_tau == pytest.approx(0.0)
    # Keeping the baseline pinned at 1114 on both changes the answer: ranks x (yi, base, step,
    # idefics, gpt-vis) = 1..5, y = 5 1 2 3 4: sum d^2 = 16 + 4, rho = 1 - 120 / 120 = 0.
    kept = board_agreement(x, y, exclude_pinned=False)
    assert kept.excluded == () and BASELINE in kept.report.models
    assert kept.report.spearman == pytest.approx(0.0, abs=1e-12)


def board(
    ratings: dict[str, float], anchor: str | None = None, baseline: str | None = None
) -> RatingBoard:
    models = {name: ModelRating(value, value - 10, value + 10) for name, value in ratings.items()}
    extra = {} if baseline is None else {"baseline": baseline}
    return RatingBoard(models=models, settings=BoardSettings(anchor_model=anchor, extra=extra))


def test_a_model_pinned_on_one_board_only_is_compared() -> None:
    # Boards against different baselines: each pins its own, and the pinned value is a rank.
    x = board({"p": 1114, "q": 1200, "r": 900, "s": 1000}, baseline="p")
    y = board({"p": 1300, "q": 1250, "r": 800, "t": 1000}, baseline="q")
    result = board_agreement(x, y)
    assert result.excluded == ()
    assert result.report.models == ("p", "q", "r")
    assert (result.only_x, result.only_y) == (("s",), ("t",))
    assert result.report.spearman == pytest.approx(0.5)  # ranks x 2 1 3, y 1 2 3


def test_an_anchor_pinned_on_both_boards_is_left_out() -> None:
    x = board({"a": 1000, "b": 1100, "c": 900}, anchor="a")
    y = board({"a": 1000, "b": 1200, "c": 950}, anchor="a")
    assert board_agreement(x, y).excluded == ("a",)
    with pytest.raises(ValueError, match="need two"):
        board_agreement(board({"a": 1000, "b": 1}, anchor="a"), board({"a": 1000, "b": 2}, "a"))


def test_the_anchor_a_reference_preset_pins_is_left_out() -> None:
    """FastChat's preset pins mixtral-8x7b-instruct-v0.1 at 1114 without naming an anchor in
    the settings; that model is pinned all the same, when it is on the board."""
    mixtral = "mixtral-8x7b-instruct-v0.1"
    ratings = {mixtral: 1114, "b": 1200, "c": 900, "d": 1000}

    def fastchat(values: dict[str, float]) -> RatingBoard:
        return replace(board(values), settings=BoardSettings(reference="fastchat"))

    x, y = fastchat(ratings), fastchat({**ratings, "c": 1300})
    assert board_agreement(x, y).excluded == (mixtral,)
    assert board_agreement(x, y, exclude_pinned=False).excluded == ()
    without = fastchat({"b": 1200, "c": 900, "d": 1000})
    assert board_agreement(without, without).excluded == ()  # the preset's anchor is not there
    assert board_agreement(board(ratings), board(ratings)).excluded == ()  # no preset
