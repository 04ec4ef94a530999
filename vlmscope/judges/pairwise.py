"""Pairwise judging against a baseline: two games with positions swapped, one nudge, verdicts.

The references (arena-hard-auto, ProBench) judge each prompt twice, once with the baseline shown
as Assistant A and once with the model as A, so that position bias cancels. A reply without a
verdict label gets one follow-up turn asking the judge to finish with a label, and the two texts
are read together (arena-hard-auto v0.1). A reply that still has no usable label stays
unparseable: counted and shown, never turned into a tie. Every judge call goes through the
cached judge client.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vlmscope.judges.client import Judge, reasoning_record
from vlmscope.judges.request import judge_request
from vlmscope.judges.settings import JudgeSettings
from vlmscope.judges.verdicts import (
    STRICT_RULES,
    ParsedVerdict,
    VerdictOutcome,
    VerdictRules,
    parse_verdict,
)
from vlmscope.messages import Part, Request, TextPart, Turn
from vlmscope.prompts import read_prompt_file

#: What the references give their judge: up to 4096 new tokens (arena-hard-auto, ProBench).
PAIRWISE_JUDGE = JudgeSettings(max_new_tokens=4096)
_USER_SEPARATOR = "\n=== USER ===\n"
_SLOTS = ("question", "answer_a", "answer_b")
_SLOT = re.compile(r"\{(" + "|".join(_SLOTS) + r")\}")


@dataclass(frozen=True)
class PairwiseTemplate:
    name: str
    version: int
    system: str
    user: str
    nudge: str
    attach_images: bool

    def render(self, question: str, answer_a: str, answer_b: str) -> str:
        """Fill the slots in one pass, so braces inside an answer are never read as slots."""
        values = {"question": question, "answer_a": answer_a, "answer_b": answer_b}
        return _SLOT.sub(lambda m: values[m.group(1)], self.user)


def load_pairwise_template(source: str) -> PairwiseTemplate:
    prompt = read_prompt_file(source)
    if _USER_SEPARATOR not in prompt.text:
        raise ValueError(
            f"{source}: a pairwise judge prompt needs a '=== USER ===' line before the user template"
        )
    system, user = prompt.text.split(_USER_SEPARATOR, 1)
    missing = [s for s in _SLOTS if "{" + s + "}" not in user]
    if missing:
        raise ValueError(
            f"{source}: the user template lacks {', '.join('{' + m + '}' for m in missing)}"
        )
    header = prompt.header
    return PairwiseTemplate(
        name=str(header.get("name", source)),
        version=int(header.get("version", 1)),
        system=system.strip(),
        user=user.strip(),
        nudge=str(header.get("nudge", "Finish with your final verdict label.")),
        attach_images=bool(header.get("attach_images", True)),
    )


@dataclass(frozen=True)
class Game:
    """One judge game. `model_first` False is the game with the baseline shown as Assistant A."""

    model_first: bool
    judgment: str | None
    verdict: ParsedVerdict
    nudged: bool = False
    error: str | None = None
    reasoning: Mapping[str, Any] = field(default_factory=dict)
    """The judge's reasoning over the game's replies (`reasoning_record`; empty without)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "model_first": self.model_first,
            "judgment": self.judgment,
            "label": self.verdict.label,
            "outcome": self.verdict.outcome.value,
            "nudged": self.nudged,
            "error": self.error,
            **self.reasoning,
        }


async def judge_pair(
    judge: Judge,
    template: PairwiseTemplate,
    *,
    question: Request,
    model_answer: str,
    baseline_answer: str,
    rules: VerdictRules = STRICT_RULES,
    settings: JudgeSettings = PAIRWISE_JUDGE,
) -> tuple[Game, Game]:
    """Game 1: baseline as A, model as B. Game 2: model as A, baseline as B."""
    first = await _game(
        judge, template, question, baseline_answer, model_answer, False, rules, settings
    )
    second = await _game(
        judge, template, question, model_answer, baseline_answer, True, rules, settings
    )
    return first, second


async def _game(
    judge: Judge,
    template: PairwiseTemplate,
    question: Request,
    answer_a: str,
    answer_b: str,
    model_first: bool,
    rules: VerdictRules,
    settings: JudgeSettings,
) -> Game:
    text = template.render(_question_text(question), answer_a, answer_b)
    images: list[Part] = list(question.images) if template.attach_images else []
    asked = judge_request(settings, [*images, text], system=template.system)
    reply = await judge.ask(asked)
    if not reply.ok:
        return Game(
            model_first, None, ParsedVerdict(None, VerdictOutcome.NO_JUDGMENT), error=reply.error
        )
    verdict = parse_verdict(reply.text, rules)
    if verdict.outcome is not VerdictOutcome.NO_LABEL:
        return Game(model_first, reply.text, verdict, reasoning=reasoning_record([reply]))
    history = (*asked.turns, Turn("assistant", (TextPart(reply.text),)))
    second = await judge.ask(
        judge_request(settings, [template.nudge], system=template.system, history=history)
    )
    trace = reasoning_record([reply, second])
    if not second.ok:
        return Game(model_first, reply.text, verdict, True, second.error, trace)
    combined = f"{reply.text}\n\n{second.text}"
    return Game(model_first, combined, parse_verdict(combined, rules), True, reasoning=trace)


def _question_text(question: Request) -> str:
    """The user's side of the conversation as text (turns joined for multi-turn prompts)."""
    users = [t.text for t in question.turns if t.role == "user"]
    return (
        users[0]
        if len(users) == 1
        else "\n\n".join(f"[turn {i + 1}] {u}" for i, u in enumerate(users))
    )
