"""How ProBench asks its judge, byte for byte as the official `gen_judgement.py` does.

- system: the track's prompt (`vlmscope/prompts/probench_judge_*.txt`, verbatim, never formatted),
  sent as a list of one text part as `GPT.chat` sends it, not as a plain string;
- one user turn: the row's image (RGB; scaled by `min(1024/w, 1024/h)` with `int()` sizes when
  a side exceeds 1024 px, PIL's default filter; JPEG with PIL's defaults), then the text below;
- single-round and multi-linguistic text: the question and both answers are the Python *lists*
  of turns, so the judge sees `['What is shown?']` (an upstream quirk, kept for parity);
- multi-round text: one `<turn{i}/>` block per turn, i from 0;
- two games: the model as Assistant A (ProBench's key "0") and the baseline as A (key "1");
- each game is asked up to 3 times, stopping at the first reply holding any `[[...]]` label;
  after 3 the last reply is kept. A reply that still has no usable label is unparseable: counted
  and shown, never a tie. Each attempt is its own cached judge call.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from PIL import Image

from vlmscope.judges.client import Judge, reasoning_record
from vlmscope.judges.request import judge_request
from vlmscope.judges.settings import JudgeSettings
from vlmscope.judges.verdicts import DOUBLE_BRACKET_PATTERN, STRICT_RULES, parse_verdict
from vlmscope.messages import ImagePart, Request, Response
from vlmscope.prompts import read_prompt_file

#: gen_judgement.py: temperature 0, max_completion_tokens 8192.
PROBENCH_JUDGE = JudgeSettings(max_new_tokens=8192)
JUDGE_ATTEMPTS = 3
JUDGE_IMAGE_SIDE = 1024
SYSTEM_PROMPT_FILES = {
    "singleround": "probench_judge_singleround.txt",
    "multi-round": "probench_judge_multiround.txt",
    "multi-linguistic": "probench_judge_multilinguistic.txt",
}
_LABEL = re.compile(DOUBLE_BRACKET_PATTERN)


@dataclass(frozen=True)
class SystemPrompt:
    name: str
    version: int
    text: str

    @property
    def template(self) -> str:
        """How the details name the prompt a verdict was given under (`name vN`)."""
        return f"{self.name} v{self.version}"


@cache
def system_prompt(chat_type: str) -> SystemPrompt:
    """The judge's system prompt for a ProBench track (read once per process)."""
    prompt = read_prompt_file(SYSTEM_PROMPT_FILES[chat_type])
    header = prompt.header
    return SystemPrompt(
        str(header.get("name", chat_type)), int(header.get("version", 1)), prompt.text
    )


def judge_image(image: bytes) -> ImagePart:
    """The image as the official judge call sends it: RGB, long side at most 1024, JPEG."""
    with Image.open(io.BytesIO(image)) as opened:
        picture = opened.convert("RGB")
    width, height = picture.size
    if width > JUDGE_IMAGE_SIDE or height > JUDGE_IMAGE_SIDE:
        scale = min(JUDGE_IMAGE_SIDE / width, JUDGE_IMAGE_SIDE / height)
        picture = picture.resize((int(width * scale), int(height * scale)))
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG")
    return ImagePart(buffer.getvalue(), "probench.jpg")


def judge_text(
    chat_type: str,
    questions: Sequence[str],
    answers_a: Sequence[str],
    answers_b: Sequence[str],
) -> str:
    """The user text of one game (official layout, then `.strip()`)."""
    if chat_type == "multi-round":
        text = "".join(
            f"\n<turn{i}/>\nTextual Instruction:\n<inst/>\n{question}\n</inst>\n\n"
            f"Assistant A's Answer:\n<a/>\n{answers_a[i]}\n</a>\n\n"
            f"Assistant B's Answer:\n<b/>\n{answers_b[i]}\n</b>\n</turn{i}>\n"
            for i, question in enumerate(questions)
        )
    else:
        text = (
            f"\nTextual Instruction:\n<inst/>\n{list(questions)}\n</inst>\n\n"
            f"Assistant A's Answer:\n<a/>\n{list(answers_a)}\n</a>\n\n"
            f"Assistant B's Answer:\n<b/>\n{list(answers_b)}\n</b>\n"
        )
    return text.strip()


def judge_game_request(
    chat_type: str,
    image: ImagePart,
    questions: Sequence[str],
    answers_a: Sequence[str],
    answers_b: Sequence[str],
) -> Request:
    """The full request of one game: system prompt, then one user turn of image and text."""
    return judge_request(
        PROBENCH_JUDGE,
        [image, judge_text(chat_type, questions, answers_a, answers_b)],
        system=system_prompt(chat_type).text,
        system_parts=True,  # GPT.chat: "content": [{"type": "text", "text": system_prompt}]
    )


async def judge_game(judge: Judge, request: Request, *, model_first: bool) -> dict[str, Any]:
    """Ask one game with the official retry rule; the game as it is stored in the details."""
    reply_text: str | None = None
    error: str | None = None
    attempts = 0
    kept: list[Response] = []
    for attempt in range(JUDGE_ATTEMPTS):
        attempts = attempt + 1
        reply = await judge.ask(request, attempt=attempt)
        if not reply.ok:
            error = reply.error or reply.status.value
            continue
        reply_text, error, kept = reply.text, None, [reply]
        if _LABEL.search(reply.text):
            break
    return game_record(
        reply_text,
        model_first=model_first,
        attempts=attempts,
        error=error,
        reasoning=reasoning_record(kept),
    )


def game_record(
    judgment: str | None,
    *,
    model_first: bool,
    attempts: int = 1,
    error: str | None = None,
    reasoning: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One game as the details store it: the kept reply, its label under ProBench's parser
    (`STRICT_RULES`) or why there is none, how many attempts it took, the last call's error,
    and the judge's reasoning behind the kept reply (`reasoning_record`, when it reasoned)."""
    verdict = parse_verdict(judgment, STRICT_RULES)
    return {
        "model_first": model_first,
        "judgment": judgment,
        "label": verdict.label,
        "outcome": verdict.outcome.value,
        "attempts": attempts,
        "error": error,
        **(reasoning or {}),
    }
