"""Grader prompt files: a YAML header (source, reply format, retry reminder), then the prompt.

The prompt that defines the benchmark is data, not code: the English grader is the paper's text,
and a config can point to another file (the official repository's Chinese grader, a translation)
without touching the track. The header says how that prompt's replies are read, so a file and its
parser cannot drift apart; a config may still override the reply format.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from vlmscope.prompts import read_prompt_file

ReplyFormat = Literal["label", "json_labels"]
REPLY_FORMATS: tuple[ReplyFormat, ...] = ("label", "json_labels")
PLACEHOLDERS: tuple[str, ...] = ("question", "gold_answer", "predicted_answer")
DEFAULT_GRADER = "simplevqa_grader_en.txt"

_SLOT = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_DEFAULT_REMINDERS: dict[ReplyFormat, str] = {
    "label": "Reply with exactly one letter: A, B or C.",
    "json_labels": '请只返回一个JSON字典，例如 {"预测答案0": "正确"}。',
}


@dataclass(frozen=True)
class GraderPrompt:
    """A loaded grader prompt: the text with its three slots, and how to read its replies."""

    name: str
    text: str
    reply_format: ReplyFormat
    retry_reminder: str

    @property
    def sha256(self) -> str:
        """Fingerprint for the summary: which exact prompt produced these grades."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def render(
        self, question: str, gold_answer: str, predicted_answer: str, *, retry: bool = False
    ) -> str:
        """Fill the slots in one pass, so braces inside a model's answer are never re-read as slots.

        A retry appends the reminder: the judge cache keys on the prompt, so re-sending the same
        prompt would only return the same unreadable reply.
        """
        values = {
            "question": question,
            "gold_answer": gold_answer,
            "predicted_answer": predicted_answer,
        }
        prompt = _SLOT.sub(lambda m: values[m.group(1)], self.text)
        return f"{prompt.rstrip()}\n\n{self.retry_reminder}" if retry else prompt


def load_grader_prompt(source: str, reply_format: ReplyFormat | None = None) -> GraderPrompt:
    """Load a packaged prompt by file name (`simplevqa_grader_zh.txt`) or any file by path.

    Raises ValueError naming what is wrong (missing file, slot, or unknown reply format).
    """
    prompt = read_prompt_file(source)
    header, text = prompt.header, prompt.text
    missing = [p for p in PLACEHOLDERS if "{" + p + "}" not in text]
    if missing:
        raise ValueError(
            f"grader prompt {source!r} lacks the slot(s) {', '.join('{' + m + '}' for m in missing)}"
        )
    chosen = reply_format or header.get("reply_format") or "label"
    if chosen not in REPLY_FORMATS:
        raise ValueError(
            f"grader prompt {source!r}: reply_format {chosen!r} is not one of {REPLY_FORMATS}"
        )
    fmt = cast(ReplyFormat, chosen)
    # A header's reminder is written for the header's format; an overridden format gets its own.
    reminder = header.get("retry_reminder") if fmt == header.get("reply_format") else None
    return GraderPrompt(
        name=str(header.get("name") or Path(source).stem),
        text=text,
        reply_format=fmt,
        retry_reminder=str(reminder or _DEFAULT_REMINDERS[fmt]),
    )
