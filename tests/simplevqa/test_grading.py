"""Grader reply parsing (both formats, from data cases) and the retry-once policy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.simplevqa.exact_grader import ScriptedGrader
from vlmscope.cache import ResponseCache
from vlmscope.judges.client import Judge
from vlmscope.messages import GenerationParams, user_request
from vlmscope.tracks.simplevqa.grader_prompt import load_grader_prompt
from vlmscope.tracks.simplevqa.grading import Grade, grade_response, grader_request, parse_reply
from vlmscope.tracks.simplevqa.track import SimpleVQATrack

SETTINGS = SimpleVQATrack.judge_settings

CASES = json.loads(
    (Path(__file__).parent / "cases" / "grader_replies.json").read_text(encoding="utf-8")
)
EXPECTED = {"correct": Grade.CORRECT, "incorrect": Grade.INCORRECT,
            "not_attempted": Grade.NOT_ATTEMPTED, "unparseable": Grade.UNPARSEABLE}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c['format']}:{c['why']}" for c in CASES])
def test_reply_cases(case: dict[str, str]) -> None:
    assert parse_reply(case["reply"], case["format"]) is EXPECTED[case["expected"]]  # type: ignore[arg-type]


def test_cases_cover_every_outcome_in_both_formats() -> None:
    for reply_format in ("label", "json_labels"):
        seen = {c["expected"] for c in CASES if c["format"] == reply_format}
        assert seen == set(EXPECTED)


def _grade(tmp_path: Path, replies: list[str | None], prompt_file: str = "simplevqa_grader_en.txt"):
    backend = ScriptedGrader(replies)
    judge = Judge(backend, ResponseCache(tmp_path / "cache.sqlite"))
    prompt = load_grader_prompt(prompt_file)
    result = asyncio.run(grade_response(judge, SETTINGS, prompt, "What city?", "Paris", "Paris"))
    return result, backend, judge


def test_first_readable_reply_is_kept(tmp_path: Path) -> None:
    result, backend, _ = _grade(tmp_path, ["B"])
    assert result.grade is Grade.INCORRECT and result.outcome == "ok"
    assert result.replies == ("B",) and len(backend.prompts) == 1


def test_unreadable_reply_is_retried_once_with_a_reminder(tmp_path: Path) -> None:
    result, backend, _ = _grade(tmp_path, ["Let me think.", "A"])
    assert result.grade is Grade.CORRECT
    assert result.replies == ("Let me think.", "A")
    first, second = backend.prompts
    assert second.startswith(first.rstrip()) and second.endswith(
        "Reply with exactly one letter: A, B or C."
    )


def test_two_unreadable_replies_stay_unparseable(tmp_path: Path) -> None:
    result, backend, _ = _grade(tmp_path, ["hmm", "still thinking", "A"])
    assert result.grade is Grade.UNPARSEABLE and result.outcome == "judge_unparseable"
    assert len(backend.prompts) == 2 and result.replies == ("hmm", "still thinking")


def test_failed_judge_call_is_not_a_grade(tmp_path: Path) -> None:
    result, _, _ = _grade(tmp_path, [None])
    assert (
        result.grade is None and result.outcome == "judge_failed" and result.judge_error == "boom"
    )


def test_json_format_retry_reminder_comes_from_the_prompt_header(tmp_path: Path) -> None:
    result, backend, _ = _grade(
        tmp_path, ["正确吧", '```json\n{"预测答案0": "正确"}\n```'], "simplevqa_grader_zh.txt"
    )
    assert result.grade is Grade.CORRECT
    assert backend.prompts[1].endswith('值只能是"正确"、"错误"、"未尝试"之一。')


def test_grades_are_cached_like_responses(tmp_path: Path) -> None:
    _, backend, judge = _grade(tmp_path, ["hmm", "C"])
    fresh = Judge(backend, ResponseCache(tmp_path / "cache.sqlite"))  # a new run, same cache file
    prompt = load_grader_prompt("simplevqa_grader_en.txt")
    result = asyncio.run(grade_response(fresh, SETTINGS, prompt, "What city?", "Paris", "Paris"))
    assert result.grade is Grade.NOT_ATTEMPTED and result.replies == ("hmm", "C")
    assert fresh.counts["cached"] == 2 and fresh.counts["asked"] == 0 and len(backend.prompts) == 2


def test_grader_request_is_text_only_and_greedy() -> None:
    prompt = load_grader_prompt("simplevqa_grader_en.txt")
    request = grader_request(SETTINGS, prompt, "Q?", "gold", "resp")
    assert request.images == [] and len(request.turns) == 1 and request.turns[0].role == "user"
    assert request.params == GenerationParams(max_new_tokens=512, temperature=0.0)
    assert (
        "Question: Q?\nCorrect Answer: gold\nPredicted Answer: resp\n```" in request.turns[0].text
    )


def test_grader_request_and_its_cache_key_are_as_before_the_shared_judge_request() -> None:
    """Grades cached before judge requests were built in one place are still found."""
    prompt = load_grader_prompt("simplevqa_grader_zh.txt")
    for retry in (False, True):
        request = grader_request(SETTINGS, prompt, "Q?", "gold", "resp", retry=retry)
        before = user_request(
            prompt.render("Q?", "gold", "resp", retry=retry),
            params=GenerationParams(temperature=0.0),
        )
        assert request == before and request.content_hash() == before.content_hash()
