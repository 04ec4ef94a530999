"""`grader: offline_match`: the gold answer matched in the response, no judge, labelled as such."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.simplevqa.test_track import FixedAnswers, make_track, oracle_for
from vlmscope.models.base import SyncBackend
from vlmscope.tracks.base import Sample, Scored, ScoringContext
from vlmscope.tracks.simplevqa.match_grader import PROTOCOL, is_refusal, match_grade, normalise
from vlmscope.tracks.simplevqa.report import tables_markdown
from vlmscope.tracks.simplevqa.track import SimpleVQATrack

CASES = json.loads(
    (Path(__file__).parent / "cases" / "match_grader_cases.json").read_text(encoding="utf-8")
)
OFFLINE = {"grader": "offline_match", "bootstrap_rounds": 100}


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_match_grader_cases(case: dict[str, str]) -> None:
    verdict = match_grade(case["gold"], case["response"])
    assert (verdict.grade.value, verdict.rule) == (case["grade"], case["rule"])


def test_cases_cover_both_languages_and_every_rule() -> None:
    assert {c["rule"] for c in CASES} == {"empty", "gold_in_response", "refusal", "no_match"}
    assert any("圆形" in c["gold"] for c in CASES) and any(c["gold"] == "Paris" for c in CASES)


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("I don't know.", True),
        ("I dont know", True),
        ("No idea", True),
        ("It cannot be determined from the image", True),
        ("我不知道", True),
        ("无法确定", True),
        ("I'm not sure, maybe Rome", False),  # a hedge is an answer
        ("我不确定，可能是北京", False),
        ("The unknown soldier", False),
    ],
)
def test_refusals_are_explicit(text: str, refusal: bool) -> None:
    assert is_refusal(text) is refusal


def test_normalise() -> None:
    assert normalise("Ｐａｒｉｓ，France！") == "paris france"
    assert normalise("3,518.17 m.") == "3518.17 m"
    assert normalise("“圆形”。") == "圆形"


def score_all(
    track: SimpleVQATrack, model: SyncBackend | None
) -> tuple[list[Sample], list[Scored]]:
    """Answer with `model` (None: the oracle) and grade with no judge at all."""
    samples = track.samples()
    responses = (model or oracle_for(samples)).generate([s.request for s in samples])

    async def run() -> list[Scored]:
        context = ScoringContext()  # judge None: the offline grader never asks one
        return [await track.score(s, r, context) for s, r in zip(samples, responses, strict=True)]

    return samples, asyncio.run(run())


def test_oracle_gets_full_marks_without_a_judge() -> None:
    track = make_track(OFFLINE, judge=None)
    samples, scored = score_all(track, None)
    assert all(s.outcome == "ok" and s.parsed == "correct" for s in scored)
    assert scored[0].extra == {"grader": "offline_match", "rule": "gold_in_response"}
    summary = track.summarize(samples, scored).summary()
    assert summary["F"] == summary["CO"] == summary["CGA"] == 1.0 and summary["n_graded"] == 6
    assert (
        summary["grader"]["protocol"] == PROTOCOL == "offline_match (not the paper's LLM grading)"
    )
    assert "prompt" not in summary["grader"] and "note" not in summary
    assert tables_markdown(summary).startswith(
        "# SimpleVQA factuality\n\nGrading: offline_match (not the paper's LLM grading).\n"
    )


def test_chinese_and_english_answers_are_graded_honestly() -> None:
    # rows: 0 CN 圆形, 1 CN 3518, 2 CN 3, 1012 EN Paris, 1013 EN 42, 1014 EN 4
    answers = ["是圆形。", "3520", "我不知道", "It says PARIS.", "I don't know", "42"]
    track = make_track(OFFLINE, judge=None)
    samples, scored = score_all(track, FixedAnswers(answers))
    assert [s.parsed for s in scored] == [
        "correct",
        "incorrect",
        "not_attempted",
        "correct",
        "not_attempted",
        "incorrect",
    ]
    summary = track.summarize(samples, scored).summary()
    assert (summary["CO"], summary["IN"], summary["NA"]) == (0.3333, 0.3333, 0.3333)  # 2 / 6, 4 dp
    assert summary["CGA"] == pytest.approx(0.5)
    assert summary["by_language"]["CN"]["counts"] == {
        "correct": 1,
        "incorrect": 1,
        "not_attempted": 1,
    }


def test_failed_requests_are_not_graded_and_rates_are_null() -> None:
    track = make_track(OFFLINE, judge=None, limit=2)
    samples, scored = score_all(track, FixedAnswers([None, None]))
    summary = track.summarize(samples, scored).summary()
    assert summary["n_graded"] == 0 and summary["F"] is None
    assert summary["note"].endswith("(2 request_failed)")


def test_the_default_is_the_papers_llm_grading_and_needs_a_judge() -> None:
    assert make_track().options.grader == "llm"
    with pytest.raises(ValueError, match="offline_match"):
        make_track(judge=None)


def test_a_judge_is_refused_with_the_offline_grader() -> None:
    with pytest.raises(ValueError, match="judge: options.grader is offline_match"):
        make_track(OFFLINE)
