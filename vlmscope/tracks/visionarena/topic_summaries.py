"""A one-line summary of each topic cluster, asked of a judge model (paper Sec. 3, Fig. 3, 11).

The paper had GPT-4o summarise each cluster and prints no prompt; the prompt here is the one
arena-hard-auto's BenchBuilder gives BERTopic when it labels arena topics
(`vlmscope/prompts/visionarena_topic_summary.txt`): the cluster's example prompts and c-TF-IDF
keywords, answered as "topic: <label>". Every request goes through the one cached `Judge`, so
a rerun asks nothing already answered. A reply without a readable label is `unparseable`, a
failed request `request_failed`: both counted, the cluster keeping its keyword name, never a
guessed label. Outliers (-1) are not a topic and are not summarised.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vlmscope.judges.client import Judge
from vlmscope.judges.request import judge_request
from vlmscope.judges.settings import JudgeSettings
from vlmscope.prompts import PromptFile, read_prompt_file
from vlmscope.tracks.visionarena.topic_table import ClusterRow

PROMPT = "visionarena_topic_summary.txt"
#: Greedy and short: a label of at most five words.
SUMMARY_SETTINGS = JudgeSettings(max_new_tokens=64, temperature=0.0)
DOC_CHARS = 500
"""Each example prompt is cut to this many characters (arena-hard: 500 tokens)."""
_AROUND = " *\"'`"
"""Spaces, markdown bold, quotes and backticks around a label, removed."""
_LABEL = re.compile(r"^\s*\**\s*topic\s*\**\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Summary:
    cluster: int
    outcome: str
    """`ok`, `unparseable` or `request_failed`."""
    label: str | None
    reply: str


def summary_prompt(row: ClusterRow, template: PromptFile) -> str:
    """The user message for one cluster: its examples as "- <prompt>" lines, its keywords."""
    documents = "".join(f"- {text[:DOC_CHARS]}\n" for text in row.examples)
    return template.text.replace("[KEYWORDS]", ", ".join(row.keywords)).replace(
        "[DOCUMENTS]", documents
    )


def parse_label(reply: str) -> str | None:
    """The label of the first "topic: <label>" line (any case, markdown bold allowed), quotes
    and a final full stop removed; None when there is none."""
    found = _LABEL.search(reply)
    if found is None:
        return None
    label = found.group(1).strip(_AROUND).rstrip(".").strip(_AROUND)
    return label or None


async def summarise(judge: Judge, rows: Sequence[ClusterRow]) -> list[Summary]:
    """A summary of every cluster of `rows` but the outliers, in the rows' order."""
    template = read_prompt_file(PROMPT)
    system = str(template.header["system"])

    async def one(row: ClusterRow) -> Summary:
        request = judge_request(SUMMARY_SETTINGS, [summary_prompt(row, template)], system=system)
        response = await judge.ask(request)
        if not response.ok:
            return Summary(row.cluster, "request_failed", None, response.error or "")
        label = parse_label(response.text)
        return Summary(row.cluster, "ok" if label else "unparseable", label, response.text)

    return list(await asyncio.gather(*(one(row) for row in rows if row.cluster >= 0)))
