"""Verdict parsing and verdict -> battle conversion, exact against the reference outputs."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.ratings.verdict_golden import BASELINE, GAME_MODES, golden, verdict_records
from vlmscope.judges.verdicts import (
    CANONICAL_LABELS,
    LAST_MATCH_RULES,
    STRICT_RULES,
    VerdictOutcome,
    label_preference,
    parse_verdict,
)
from vlmscope.ratings.inputs.verdict_battles import (
    NON_CANONICAL,
    OTHER_GAME_UNPARSEABLE,
    battles_from_verdicts,
    scores_from_verdicts,
)
from vlmscope.ratings.inputs.verdict_records import VerdictRecord, verdict_record_from_dict


def _labels(rules) -> list[list]:
    return [
        [
            r.model,
            r.uid,
            parse_verdict(r.judgments[0], rules).label,
            parse_verdict(r.judgments[1], rules).label,
        ]
        for r in verdict_records()
    ]


def test_strict_rules_match_probench_get_score_on_every_record() -> None:
    assert _labels(STRICT_RULES) == golden("probench_show_result.json")["parsed_scores"]


def test_last_match_rules_match_arena_hard_v2_get_score_on_every_record() -> None:
    assert _labels(LAST_MATCH_RULES) == golden("arena_hard_v2_verdicts.json")["parsed_scores"]


@pytest.mark.parametrize(
    ("text", "strict", "last_match"),
    [
        ("verdict: [[A>>B]]", ("A>>B", "parsed"), ("A>>B", "parsed")),
        ("[[B>A]] ... again [[B>A]]", ("B>A", "parsed"), ("B>A", "parsed")),
        ("no verdict here", (None, "no_label"), (None, "no_label")),
        ("[[A>B]] then [[B>>A]]", (None, "conflicting_labels"), ("B>>A", "parsed")),
        ("final: [A=B]", (None, "no_label"), ("A=B", "parsed")),
        ("final: [[a>b]]", (None, "no_label"), ("A>B", "parsed")),
        ("[[A>B]] but [B>A]", ("A>B", "parsed"), ("A>B", "parsed")),
        ("[[B<A]]", ("B<A", "parsed"), ("B<A", "parsed")),
        ("[[]] and [[ A>B ]]", (None, "no_label"), (None, "no_label")),
        (None, (None, "no_judgment"), (None, "no_judgment")),
    ],
)
def test_parse_rules(text, strict, last_match) -> None:
    for rules, (label, outcome) in ((STRICT_RULES, strict), (LAST_MATCH_RULES, last_match)):
        verdict = parse_verdict(text, rules)
        assert (verdict.label, verdict.outcome.value) == (label, outcome)
        assert verdict.parsed == (outcome == "parsed")


def test_label_preferences() -> None:
    assert [label_preference(label).a_score for label in CANONICAL_LABELS] == [1, 1, 0.5, 0, 0]
    assert [label_preference(label).strong for label in CANONICAL_LABELS] == [
        True,
        False,
        False,
        False,
        True,
    ]
    assert label_preference("B<A") is None  # ProBench / AH-v0.1 drop mirrored spellings
    assert label_preference("B<A", accept_mirrored=True).a_score == 1.0
    assert label_preference("A<<B", accept_mirrored=True).strong
    assert label_preference("A>>>B", accept_mirrored=True) is None
    assert label_preference(None) is None


@pytest.mark.parametrize("mode", GAME_MODES)
def test_battle_rows_and_winners_per_model_match_probench(mode: str) -> None:
    for model, expected in golden("probench_show_result.json")[mode].items():
        own = [r for r in verdict_records() if r.model == model]
        rows = battles_from_verdicts(own, first_game_only=mode == "first_game_only").rows
        assert len(rows) == expected["n_battle_rows"]
        assert dict(Counter(b.winner for b in rows)) == expected["winner_counts"]
        assert {(b.model_a, b.model_b) for b in rows} == {(BASELINE, model)}


@pytest.mark.parametrize("mode", GAME_MODES)
def test_joint_battle_rows_match_arena_hard_v01(mode: str) -> None:
    judged = battles_from_verdicts(verdict_records(), first_game_only=mode == "first_game_only")
    assert len(judged.rows) == golden("arena_hard_v01_verdicts.json")[mode]["n_battle_rows"]


def test_unparseable_games_are_counted_never_ties() -> None:
    judged = battles_from_verdicts(verdict_records())
    assert judged.excluded_by_reason() == {
        "no_label": 23,
        "conflicting_labels": 9,
        "no_judgment": 4,
        NON_CANONICAL: 6,
    }
    assert judged.unparseable == 42
    scored = scores_from_verdicts(verdict_records())
    assert len(scored.rows) == golden("arena_hard_v2_verdicts.json")["n_battle_rows"]
    assert scored.unparseable == 14  # v2 reads [A>B], [[a>b]] and conflicts (last label)
    assert scored.excluded_by_reason()[OTHER_GAME_UNPARSEABLE] == 14


def _record(first: str | None, second: str | None) -> VerdictRecord:
    return VerdictRecord("q1", "m", "base", (first, second))


def test_games_are_read_from_each_side_and_strong_verdicts_repeat() -> None:
    rows = battles_from_verdicts([_record("[[A>>B]]", "[[A>B]]")], weight=3).rows
    assert [b.winner for b in rows] == ["model_a"] * 3 + ["model_b"]
    rows = battles_from_verdicts([_record("[[B>A]]", "[[B>>A]]")], weight=2).rows
    assert [b.winner for b in rows] == ["model_b", "model_a", "model_a"]
    rows = battles_from_verdicts([_record("[[A>>B]]", "[[A=B]]")], first_game_only=True).rows
    assert [b.winner for b in rows] == ["model_a"] * 3


def test_a_conflicting_game_drops_only_itself() -> None:
    judged = battles_from_verdicts([_record("[[A>B]] or [[B>A]]", "[[A=B]]")])
    assert [b.winner for b in judged.rows] == ["tie"]
    assert [(e.game, e.reason) for e in judged.excluded] == [(0, "conflicting_labels")]


def test_v2_scores_are_for_the_judged_model_and_drop_the_whole_record() -> None:
    rows = scores_from_verdicts([_record("[[B>>A]]", "[[A=B]]")]).rows
    assert [r.score for r in rows] == [0.5, 1.0, 1.0, 1.0]
    judged = scores_from_verdicts([_record(None, "[[A>B]]")])
    assert judged.rows == []
    assert [(e.game, e.reason) for e in judged.excluded] == [
        (0, VerdictOutcome.NO_JUDGMENT.value),
        (1, OTHER_GAME_UNPARSEABLE),
    ]


def test_record_layouts() -> None:
    probench = verdict_record_from_dict({"uuid": "u", "model": "m", "1": "x", "0": None}, "b")
    assert (probench.uid, probench.baseline, probench.judgments) == ("u", "b", ("x", None))
    arena = verdict_record_from_dict(
        {
            "question_id": "q",
            "model": "m",
            "baseline": "b2",
            "games": [{"judgment": "x", "score": "A>B"}, None],
        },
        "b",
    )
    assert (arena.uid, arena.baseline, arena.judgments) == ("q", "b2", ("x", None))
    with pytest.raises(ValueError, match="baseline"):
        verdict_record_from_dict({"uid": "u", "model": "m", "games": [{}, {}]})
    with pytest.raises(ValueError, match="2 games"):
        verdict_record_from_dict({"uid": "u", "model": "m", "baseline": "b", "games": [{}]})
