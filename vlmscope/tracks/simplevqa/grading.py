"""Grade a response with the SimpleVQA grader: build the judge request, read its reply.

Two reply formats exist. The paper's English grader answers one letter (A = Correct,
B = Incorrect, C = Not attempted); the official repository's Chinese grader answers a JSON dict
{"预测答案0": "正确" | "错误" | "未尝试"}, read with the official script's quirks (spec 3.4/3.5):
code fences removed, a missing closing brace added, the first value taken by position, `**`
removed, and an off-label string longer than three characters counted as 未尝试.

A reply that cannot be read is asked once more (with a reminder of the format); if that fails too
the grade is UNPARSEABLE: counted and shown, excluded from the rates, never turned into a grade.
The official script crashes on such a reply and VLMEvalKit counts it in no class but in the
denominator; both would make the numbers depend on how often a judge rambles.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vlmscope.judges.client import Judge, reasoning_record
from vlmscope.judges.request import judge_request
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Request, Response
from vlmscope.tracks.simplevqa.grader_prompt import GraderPrompt, ReplyFormat


class Grade(str, enum.Enum):
    CORRECT = "correct"
    INCORRECT = "incorrect"
    NOT_ATTEMPTED = "not_attempted"
    UNPARSEABLE = "judge_unparseable"


_LETTERS = {"A": Grade.CORRECT, "B": Grade.INCORRECT, "C": Grade.NOT_ATTEMPTED}
_ZH_LABELS = {"正确": Grade.CORRECT, "错误": Grade.INCORRECT, "未尝试": Grade.NOT_ATTEMPTED}
_LETTER_FIRST = re.compile(r"^[\s\[(\"'“]*([ABC])(?![A-Za-z])")
_BARE_LETTER_LINE = re.compile(r"^[\s\[(\"'“]*([ABC])[\])\"'”.:：]*\s*$")
_BRACKETED = re.compile(r"\[\s*(correct|incorrect|not\s+attempted)\s*\]", re.IGNORECASE)
_WORDS = re.compile(r"\b(correct|incorrect|not\s+attempted)\b", re.IGNORECASE)
_STRIP = " \t\r\n.。!！:：\"'“”【】[]"


@dataclass(frozen=True)
class GradeResult:
    """The grade (None when the judge itself failed) and every reply it was read from."""

    grade: Grade | None
    replies: tuple[str, ...]
    judge_error: str | None = None
    reasoning: Mapping[str, Any] = field(default_factory=dict)
    """The grader's reasoning behind the replies (`reasoning_record`; empty without)."""

    @property
    def outcome(self) -> str:
        if self.grade is None:
            return "judge_failed"
        return "judge_unparseable" if self.grade is Grade.UNPARSEABLE else "ok"


def grader_request(
    settings: JudgeSettings,
    prompt: GraderPrompt,
    question: str,
    gold_answer: str,
    predicted: str,
    *,
    retry: bool = False,
) -> Request:
    """Text only, one user turn: the official grader never sees the image."""
    return judge_request(settings, [prompt.render(question, gold_answer, predicted, retry=retry)])


def parse_reply(reply: str, reply_format: ReplyFormat) -> Grade:
    return (
        parse_json_labels_reply(reply)
        if reply_format == "json_labels"
        else parse_label_reply(reply)
    )


def parse_label_reply(reply: str) -> Grade:
    """Read a letter (A/B/C) or label ([Correct], Not Attempted, 正确) reply.

    Explicit marks (a leading letter, a bare letter on the last line, a bracketed label) win over
    label words in running text; whichever kind is present must name one grade, so an echo of
    the three options is unparseable rather than read as its first option.
    """
    text = reply.replace("**", "").strip()
    if not text:
        return Grade.UNPARSEABLE
    if text.strip(_STRIP) in _ZH_LABELS:
        return _ZH_LABELS[text.strip(_STRIP)]
    explicit: set[Grade] = set()
    for match in (_LETTER_FIRST.match(text), _BARE_LETTER_LINE.match(text.splitlines()[-1])):
        if match:
            explicit.add(_LETTERS[match.group(1)])
    explicit |= {_word_grade(w) for w in _BRACKETED.findall(text)}
    found = explicit or {_word_grade(w) for w in _WORDS.findall(text)}
    return found.pop() if len(found) == 1 else Grade.UNPARSEABLE


def parse_json_labels_reply(reply: str) -> Grade:
    """Read the official Chinese grader's JSON reply exactly as `simpleVQA_eval.py` does.

    Unlike the official script, a reply it would crash on (invalid JSON, a label it cannot map)
    is UNPARSEABLE instead of an exception. So is an empty dict `{}`, which the official script
    keeps as a row with no grade that still counts in N (lowering every rate); if every row is
    like that it crashes as well.
    """
    text = reply.replace("```json", "").replace("```python", "").replace("```", "").strip()
    if not text:
        return Grade.UNPARSEABLE
    if text[-1] != "}":
        text += "}"
    try:
        verdicts = json.loads(text)
    except json.JSONDecodeError:
        return Grade.UNPARSEABLE
    if not isinstance(verdicts, dict) or not verdicts:
        return Grade.UNPARSEABLE
    return _official_label(next(iter(verdicts.values())))


def _official_label(value: object) -> Grade:
    """The official normalisation of one verdict value (spec 3.5)."""
    if isinstance(value, dict):
        conclusion = value.get("conclusion")
        if not isinstance(conclusion, str):
            return Grade.UNPARSEABLE
        label = conclusion.replace("**", "")
    elif isinstance(value, str):
        label = value
        if label not in _ZH_LABELS:
            label = label.replace("**", "")
            if len(label) > 3:
                label = "未尝试"
    else:
        return Grade.UNPARSEABLE
    return _ZH_LABELS.get(label, Grade.UNPARSEABLE)


def _word_grade(word: str) -> Grade:
    normalised = " ".join(word.lower().split())
    return {"correct": Grade.CORRECT, "incorrect": Grade.INCORRECT}.get(
        normalised, Grade.NOT_ATTEMPTED
    )


async def grade_response(
    judge: Judge,
    settings: JudgeSettings,
    prompt: GraderPrompt,
    question: str,
    gold_answer: str,
    predicted: str,
) -> GradeResult:
    """Ask the (cached) judge; retry an unreadable reply once with the format reminder."""
    replies: list[str] = []
    answered: list[Response] = []
    for retry in (False, True):
        response = await judge.ask(
            grader_request(settings, prompt, question, gold_answer, predicted, retry=retry)
        )
        if not response.ok:
            error = response.error or response.status.value
            return GradeResult(None, tuple(replies), error, reasoning_record(answered))
        replies.append(response.text)
        answered.append(response)
        grade = parse_reply(response.text, prompt.reply_format)
        if grade is not Grade.UNPARSEABLE:
            return GradeResult(grade, tuple(replies), reasoning=reasoning_record(answered))
    return GradeResult(Grade.UNPARSEABLE, tuple(replies), reasoning=reasoning_record(answered))


class GradeVerdicts:
    """The grader's replies as a judge panel reads them (`vlmscope.judges.panel`): a grade,
    stated back in the prompt's reply format. Grades are labels: a mean of them means nothing."""

    numeric = False
    neutral = Grade.NOT_ATTEMPTED.value

    def __init__(self, reply_format: ReplyFormat) -> None:
        self.reply_format = reply_format

    def read(self, reply: str) -> str | None:
        grade = parse_reply(reply, self.reply_format)
        return None if grade is Grade.UNPARSEABLE else grade.value

    def write(self, verdict: str) -> str:
        grade = Grade(verdict)
        if self.reply_format == "json_labels":
            label = next(zh for zh, g in _ZH_LABELS.items() if g is grade)
            return json.dumps({"预测答案0": label}, ensure_ascii=False)
        return next(letter for letter, g in _LETTERS.items() if g is grade)

    def value(self, verdict: str) -> float:
        raise ValueError("SimpleVQA grades are labels; a panel takes their majority")

    def nearest(self, value: float) -> str:
        raise ValueError("SimpleVQA grades are labels; a panel takes their majority")
