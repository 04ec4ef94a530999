"""Stand-ins for reasoning models behind OpenAI-compatible servers, for whole runs.

Two kinds of server, as users meet them:

* `ReasoningAPI`: a reasoning API (OpenAI's o-series and GPT-5 family): it refuses `max_tokens`
  and any `temperature` with a 400 naming the parameter, as the real one does, and returns the
  trace in `reasoning_content` with `completion_tokens_details.reasoning_tokens`;
* `InlineThinking`: an open thinking model served without a reasoning parser: the trace is
  inline, `<think>...</think>` before the answer (or never closed, when cut off).

Both answer through one `Thinker`: what a model or judge would answer and what it thought
first. The thoughts are written to mislead a reader of the whole text: a wrong `Answer:` for
MEGA-Bench's parsers, a wrong grade letter, a contrary verdict label, a low `**Score**`, a
contrary decision. Only a run that scores the answer alone gets the right numbers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.servers import Call, Reply
from tests.simplevqa.exact_grader import grader_reply

WRONG = "Let me look again. Answer: WRONG\n\nHmm, no."
REASONING_TOKENS = 17


@dataclass
class Thinker:
    """The answer and the thought behind it, for a model's or a judge's request.

    `answers` maps a request's last message (`message_key`) to the answer a model gives (the
    gold, for the tracks whose scores are checked); any other model request gets `fallback`.
    Judge requests are recognised by their prompts. `cut_off` messages end inside the thought
    (no answer)."""

    answers: Mapping[str, str] = field(default_factory=dict)
    fallback: str = "A careful answer."
    cut_off: frozenset[str] = frozenset()

    def __call__(self, call: Call) -> tuple[str, str]:
        body = json.dumps(call.body or {}, ensure_ascii=False)
        if "[[A" in body:  # a pairwise judge (ProBench, VisionArena-Bench)
            return "My final verdict is [[A>B]].", "At first sight [[B>>A]], but no."
        if "<decision>" in body:  # a VisionArena category classifier
            return "<decision>yes</decision>", "Not <decision>no</decision> after all."
        if "**Score**" in body:  # MEGA-Bench's open-ended judge
            return "**Score**: 9\n**Score explanation**: right.", "**Score**: 2 would be harsh."
        try:
            return grader_reply(call.prompt), "B? or C? Let me check the gold answer."
        except ValueError:
            pass  # not a SimpleVQA grader prompt: a model's request
        return self.answers.get(last_message_key(call), self.fallback), WRONG

    def cuts_off(self, call: Call) -> bool:
        return last_message_key(call) in self.cut_off


def message_key(message: Mapping[str, Any]) -> str:
    """A digest of one chat message (its images' data URLs included)."""
    return hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()


def last_message_key(call: Call) -> str:
    messages = (call.body or {}).get("messages") or [{}]
    return message_key(messages[-1])


class ReasoningAPI:
    """A replier that behaves like a reasoning API (module docstring)."""

    def __init__(self, thinker: Thinker) -> None:
        self.thinker = thinker
        self.refused: list[str] = []

    def __call__(self, call: Call) -> Reply:
        body = call.body or {}
        for param, message, code in (
            ("max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this "
             "model. Use 'max_completion_tokens' instead.", "unsupported_parameter"),
            ("temperature", "Unsupported value: 'temperature' does not support 0.0 with this "
             "model. Only the default (1) value is supported.", "unsupported_value"),
        ):  # fmt: skip
            if param in body:
                self.refused.append(param)
                error = {"message": message, "type": "invalid_request_error", "param": param,
                         "code": code}  # fmt: skip
                return Reply(status=400, body=json.dumps({"error": error}).encode())
        answer, thought = self.thinker(call)
        if self.thinker.cuts_off(call):
            return Reply(text="", reasoning=thought, reasoning_tokens=64, finish_reason="length")
        return Reply(text=answer, reasoning=thought, reasoning_tokens=REASONING_TOKENS)


class InlineThinking:
    """A replier for a thinking model served without a reasoning parser (module docstring)."""

    def __init__(self, thinker: Thinker, tags: tuple[str, str] = ("<think>", "</think>")) -> None:
        self.thinker = thinker
        self.tags = tags

    def __call__(self, call: Call) -> Reply:
        answer, thought = self.thinker(call)
        opening, closing = self.tags
        if self.thinker.cuts_off(call):
            return Reply(text=f"{opening}\n{thought} and then", finish_reason="length")
        return Reply(text=f"{opening}\n{thought}\n{closing}\n\n{answer}")
