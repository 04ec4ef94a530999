"""The answers of a conversation's earlier turns, each beside its reasoning trace, in the details.

A details row stands for a sample by its last turn's answer: `response` and its trace in
`reasoning`. In a multi-turn sample (ProBench's multi-round rows) the model also answered every
turn before it, and each of those answers may carry a trace of its own; without this column
those traces lived only in the cache. `earlier_turns` lists them in turn order, each answer
with its status, trace and trace tokens, the same fields the row keeps for its last turn. A
single-turn sample has none (an empty list). Details written before the column existed read as
rows whose earlier turns were not recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import datasets

from vlmscope.messages import Response, Status, Usage

COLUMN = "earlier_turns"
FEATURE = datasets.List(
    {
        "answer": datasets.Value("string"),
        "status": datasets.Value("string"),
        "reasoning": datasets.Value("string"),
        "reasoning_tokens": datasets.Value("int64"),
        "truncated_in_reasoning": datasets.Value("bool"),
    }
)


def earlier_turns(responses: Sequence[Response]) -> list[dict[str, Any]]:
    """Every turn's answer but the last (which is the row's own `response`), in order."""
    return [
        {
            "answer": r.text,
            "status": r.status.value,
            "reasoning": r.reasoning,
            "reasoning_tokens": r.usage.reasoning_tokens,
            "truncated_in_reasoning": r.truncated_in_reasoning,
        }
        for r in responses[:-1]
    ]


def earlier_responses(entries: Sequence[dict[str, Any]]) -> list[Response]:
    """The earlier turns' answers as `earlier_turns` keeps them (a rejudge restoring a cache)."""
    return [
        Response(
            text=str(e.get("answer") or ""),
            status=Status(e.get("status") or "ok"),
            usage=Usage(reasoning_tokens=int(e.get("reasoning_tokens") or 0)),
            reasoning=str(e.get("reasoning") or ""),
            truncated_in_reasoning=bool(e.get("truncated_in_reasoning")),
        )
        for e in entries
    ]
