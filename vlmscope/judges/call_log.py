"""What each call behind one scored sample cost, noted as the judge answers.

A track scores a sample by asking its judge any number of times (two games, a nudge, a retry,
one call per judged field); only the judge client sees every call. `Judge.ask` notes each one
here, and the runner reads the notes of one sample: its details keep every call's tokens and
latency, and the summary's ledger adds them up. The notes are kept in a context variable, so
samples scored concurrently (each in its own asyncio task, which copies the context) never mix
their calls; outside `collecting` nothing is noted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

from vlmscope.messages import Response

GENERATE = "generate"
JUDGE = "judge"
CLASSIFY = "classify"
PHASES = (GENERATE, JUDGE, CLASSIFY)
"""The phases a call can belong to: a model answering, a judge judging or grading, a judge
sorting prompts into categories (`vlmscope visionarena classify`)."""


@dataclass(frozen=True)
class Call:
    """One call as a sample's details keep it: a model's answer to one turn (`phase`
    "generate") or one judge call ("judge"; "classify" for a category classifier).

    `model`: the model or judge that answered, by its config name. `cached`: the reply came
    from the cache (an earlier run paid for it; its tokens are that call's). `request`: the
    request's content hash (its first 16 hex digits), `attempt` and `repeat` which ask of it
    this was (a retry of a reply without a verdict; a panel's repeated ask). In a judge panel
    (`panel` its name, "" outside one) `verdict` is what the panel read from this reply and
    `panel_verdict` the panel's aggregate ("" where there was none)."""

    phase: str
    model: str
    cached: bool
    ok: bool
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    latency_s: float
    request: str = ""
    attempt: int = 0
    repeat: int = 0
    panel: str = ""
    verdict: str = ""
    panel_verdict: str = ""

    @classmethod
    def of(cls, phase: str, model: str, response: Response, *, cached: bool, **where: Any) -> Call:
        usage = response.usage
        return cls(
            phase=phase,
            model=model,
            cached=cached,
            ok=response.ok,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            latency_s=response.latency_s,
            **where,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_CALLS: ContextVar[list[Call] | None] = ContextVar("vlmscope_judge_calls", default=None)


@contextmanager
def collecting() -> Iterator[list[Call]]:
    """Note every judge call made in this context (an asyncio task: one sample's scoring)."""
    calls: list[Call] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


def note(call: Call) -> None:
    """Add `call` to the notes of the current context, if any are being kept."""
    calls = _CALLS.get()
    if calls is not None:
        calls.append(call)
