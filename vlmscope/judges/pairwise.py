"""Pairwise judging against a baseline: two games with positions swapped, one nudge, verdicts.

The references (arena-hard-auto, ProBench) judge each prompt twice, once with the baseline shown
as Assistant A and once with the model as A, so that position bias cancels. A reply without a
verdict label gets one follow-up turn asking the judge to finish with a label, and the two texts
are read together (arena-hard-auto v0.1). A reply that still has no usable label stays
unparseable: counted and shown, never turned into a tie. Every judge call goes through the
cached judge client.

How often a game is asked and how its replies become the judgment text follow the reference
scorer (`JudgeAttempts`): arena-hard-auto v0.1 asks up to twice and records every reply after a
newline (its `judgment += "\n" + new_judgment`), so a stored judgment reads as the reference's
own judgment files do; arena-hard-auto v2 asks once and keeps the reply as it came.

A call that still fails after the client's retries ends the game without a judgment, recorded
with its error. v2 does the same (its game is `None`). v0.1 reads only a rate limit or a
rejected request that outlasts its retries as the text `$ERROR$` and nudges after it; any other
failure stops its run, and the rerun asks again, as a rerun of ours does. A rejected request is
rejected again when nudged (the nudge repeats it), so v0.1 ends without a label there too; only
a rate limit that lifts between the two calls could give v0.1 a label that ours does not.
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
from vlmscope.messages import Part, Request, Response, TextPart, Turn
from vlmscope.prompts import read_prompt_file

#: What the references give their judge: up to 4096 new tokens (arena-hard-auto, ProBench).
PAIRWISE_JUDGE = JudgeSettings(max_new_tokens=4096)
#: arena-hard-auto v2's judge config (`config/arena-hard-v2.0.yaml`): 16000 new tokens.
ARENA_HARD_V2_JUDGE = JudgeSettings(max_new_tokens=16000)
#: arena-hard-auto v0.1's follow-up turn after a reply without a verdict label, word for word.
ARENA_HARD_NUDGE = "continue your judgment and finish by outputting a final verdict label"
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
        nudge=str(header.get("nudge", ARENA_HARD_NUDGE)),
        attach_images=bool(header.get("attach_images", True)),
    )


@dataclass(frozen=True)
class JudgeAttempts:
    """How many times a game may be asked (a reply without a label gets the template's nudge
    while attempts remain), and the text put before each reply when they are joined."""

    count: int
    before_each: str


#: arena-hard-auto v0.1 `judgment()`: `number_of_judgment_attempts: 2`, replies joined as
#: `"\n" + reply` each (a one-reply judgment starts with a newline too).
ARENA_HARD_V01_ATTEMPTS = JudgeAttempts(count=2, before_each="\n")
#: arena-hard-auto v2 `pairwise_judgment()`: one call, its answer kept as it came.
ARENA_HARD_V2_ATTEMPTS = JudgeAttempts(count=1, before_each="")


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
    attempts: JudgeAttempts = ARENA_HARD_V01_ATTEMPTS,
) -> tuple[Game, Game]:
    """Game 1: baseline as A, model as B. Game 2: model as A, baseline as B."""
    ask = _Asking(judge, template, rules, settings, attempts)
    first = await ask.game(question, baseline_answer, model_answer, False)
    second = await ask.game(question, model_answer, baseline_answer, True)
    return first, second


@dataclass(frozen=True)
class _Asking:
    judge: Judge
    template: PairwiseTemplate
    rules: VerdictRules
    settings: JudgeSettings
    attempts: JudgeAttempts

    async def game(
        self, question: Request, answer_a: str, answer_b: str, model_first: bool
    ) -> Game:
        """Ask until a reply leaves no label missing (a conflict is final, as upstream) or the
        attempts run out; the verdict is read from the replies joined."""
        template, settings = self.template, self.settings
        text = template.render(_question_text(question), answer_a, answer_b)
        images: list[Part] = list(question.images) if template.attach_images else []
        asked = judge_request(settings, [*images, text], system=template.system)
        replies: list[Response] = []
        joined, verdict = "", ParsedVerdict(None, VerdictOutcome.NO_JUDGMENT)
        while True:
            reply = await self.judge.ask(asked)
            nudged = bool(replies)
            if not reply.ok:  # the replies so far, as read after the last of them
                if not replies:
                    return Game(model_first, None, verdict, error=reply.error)
                trace = reasoning_record([*replies, reply])
                return Game(model_first, joined, verdict, nudged, reply.error, trace)
            replies.append(reply)
            joined += self.attempts.before_each + reply.text
            verdict = parse_verdict(joined, self.rules)
            if (
                verdict.outcome is not VerdictOutcome.NO_LABEL
                or len(replies) >= self.attempts.count
            ):
                return Game(
                    model_first, joined, verdict, nudged, reasoning=reasoning_record(replies)
                )
            history = (*asked.turns, Turn("assistant", (TextPart(reply.text),)))
            asked = judge_request(
                settings, [template.nudge], system=template.system, history=history
            )


def _question_text(question: Request) -> str:
    """The user's side of the conversation as text (turns joined for multi-turn prompts)."""
    users = [t.text for t in question.turns if t.role == "user"]
    return (
        users[0]
        if len(users) == 1
        else "\n\n".join(f"[turn {i + 1}] {u}" for i, u in enumerate(users))
    )
