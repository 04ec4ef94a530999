"""A rule-based exact-match grader for tests only: replies like the SimpleVQA grader would.

It reads the gold answer and the response out of a rendered grader prompt (either packaged
prompt) and answers in that prompt's reply format, so the real request building, caching and
reply parsing all run without a language model. Exact match after trimming and case folding is
Correct, an empty or "I don't know" response is Not attempted, anything else is Incorrect.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from vlmscope.messages import Request, Response, Status
from vlmscope.models.base import ProgressCallback, SyncBackend

_ITEM = {
    "label": re.compile(r"\nCorrect Answer: (.*)\nPredicted Answer: (.*)\n```\nEvaluate", re.S),
    "json_labels": re.compile(
        # the official layout: indented lines, a space before each line break
        r"\n *正确答案: (.*) \n *预测答案: \n\[预测答案0\]：(.*) \n *```\n\n *请严格",
        re.S,
    ),
}
_LETTER = {"correct": "A", "incorrect": "B", "not_attempted": "C"}
_ZH = {"correct": "正确", "incorrect": "错误", "not_attempted": "未尝试"}


def read_grader_prompt(prompt: str) -> tuple[str, str, str]:
    """(reply format, gold answer, response) of a rendered grader prompt."""
    for reply_format, pattern in _ITEM.items():
        match = pattern.search(prompt)
        if match:
            return reply_format, match.group(1), match.group(2)
    raise ValueError("not a SimpleVQA grader prompt")


def exact_grade(gold: str, response: str) -> str:
    answer = response.strip().rstrip(".。").casefold()
    if answer in ("", "i don't know", "我不知道"):
        return "not_attempted"
    return "correct" if answer == gold.strip().casefold() else "incorrect"


def grader_reply(prompt: str) -> str:
    reply_format, gold, response = read_grader_prompt(prompt)
    grade = exact_grade(gold, response)
    if reply_format == "label":
        return _LETTER[grade]
    return "```json\n" + json.dumps({"预测答案0": _ZH[grade]}, ensure_ascii=False) + "\n```"


class ExactMatchGrader(SyncBackend):
    """A judge backend that grades by exact match (see module docstring)."""

    def __init__(self, name: str = "exact-match-grader") -> None:
        super().__init__()
        self.name = name
        self.prompts: list[str] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "exact-match-test-grader"}

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        replies = []
        for request in requests:
            prompt = request.turns[-1].text
            self.prompts.append(prompt)
            replies.append(Response(text=grader_reply(prompt)))
        if on_done is not None:
            on_done(replies)
        return replies


class ScriptedGrader(SyncBackend):
    """Replies with the given texts in order (the last one repeats); None means a failed call."""

    def __init__(self, replies: Sequence[str | None]) -> None:
        super().__init__()
        self.name = "scripted-grader"
        self.replies = list(replies)
        self.prompts: list[str] = []

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "scripted-test-grader", "replies": self.replies}

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        out = []
        for request in requests:
            self.prompts.append(request.turns[-1].text)
            text = self.replies[min(len(self.prompts), len(self.replies)) - 1]
            out.append(
                Response(text="", status=Status.REQUEST_FAILED, error="boom")
                if text is None
                else Response(text=text)
            )
        return out
