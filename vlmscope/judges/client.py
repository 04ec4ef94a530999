"""The one judge client every track uses.

A judge is any backend (an OpenAI-compatible API, a local model). What this adds is the cache:
a judgment is keyed like a model response, by the judge backend's identity (model and
parameters) and the full request (the prompt template's text is part of the prompt, so a new
template version is a new key). Re-running a config re-asks nothing already judged.

A reasoning judge is a judge like any other: its backend splits the trace off the reply, so a
verdict is read from the answer alone; `reasoning_record` is what each track keeps of the trace
in its judge details.

Every call is noted for the sample being scored (`vlmscope.judges.call_log`: its tokens and
latency, cached or asked), and a call that would be asked passes the run's `gate` first (a
budget that may refuse it, `CallGate`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from vlmscope.cache import ResponseCache
from vlmscope.config import option_fields
from vlmscope.judges.call_log import JUDGE, Call, note
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Request, Response, cache_key, effective_max_new_tokens
from vlmscope.models.base import Backend, LoopLocal


class CallGate(Protocol):
    """Lets a call through before it is sent (a budget): `reserve` raises to refuse it, and
    returns a ticket that `settle` closes with the response once it is in."""

    def reserve(self, model: str, request: Request) -> object: ...

    def settle(self, ticket: object, response: Response) -> None: ...


class Judge:
    def __init__(
        self,
        backend: Backend,
        cache: ResponseCache,
        *,
        max_in_flight: int = 16,
        gate: CallGate | None = None,
        phase: str = JUDGE,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.gate = gate
        self.phase = phase
        self.counts: Counter[str] = Counter()
        self._limit = LoopLocal(lambda: asyncio.Semaphore(max_in_flight))

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def identity(self) -> dict[str, Any]:
        return self.backend.identity

    def describe(self, settings: JudgeSettings) -> dict[str, Any]:
        """The judge and the limits its replies were actually given, for a run's summary: the
        temperature is the judge config's when it sets one, None when none is sent; `options`
        are the judge config's own (when it sets any)."""
        identity = self.backend.identity
        options = {name: identity[name] for name in sorted(option_fields()) if name in identity}
        override = options.get("generation", {}).get("temperature")
        described = {
            "judge": self.backend.name,
            "max_new_tokens": effective_max_new_tokens(
                settings.max_new_tokens, identity.get("max_new_tokens")
            ),
            "temperature": settings.temperature if override is None else override,
        }
        if options.get("send_temperature") is False:  # the server's own
            described["temperature"] = None
        return {**described, "options": options} if options else described

    async def ask(self, request: Request, *, attempt: int = 0, repeat: int = 0) -> Response:
        """Return the judge's response, from the cache when this exact request was judged.

        `attempt` > 0 asks the same request again as a separate cached call (a benchmark whose
        official rule re-asks a reply without a verdict must not get the cached reply back);
        `repeat` > 0 likewise (a judge panel asking the same judge again, to see how stable
        its verdicts are)."""
        key = judgment_key(self.backend.identity, request, attempt=attempt, repeat=repeat)
        where = {"request": request.content_hash()[:16], "attempt": attempt, "repeat": repeat}
        cached = self.cache.get(key)
        if cached is not None and cached.ok:
            self.counts["cached"] += 1
            note(Call.of(self.phase, self.name, cached, cached=True, **where))
            return cached
        ticket = self.gate.reserve(self.name, request) if self.gate is not None else None
        async with self._limit.get():
            response = await self.backend.agenerate(request)
        self.cache.put_many({key: response}, backend=self.backend.name)
        if self.gate is not None:
            self.gate.settle(ticket, response)
        self.counts["asked"] += 1
        if not response.ok:
            self.counts["failed"] += 1
        note(Call.of(self.phase, self.name, response, cached=False, **where))
        return response


def judgment_key(
    identity: dict[str, Any], request: Request, *, attempt: int = 0, repeat: int = 0
) -> str:
    """The cache key of a judgment: the judge's identity, which ask it was, and the request."""
    extra = {"attempt": attempt} if attempt else {}
    extra |= {"repeat": repeat} if repeat else {}
    return cache_key({**identity, **extra} if extra else identity, request)


def reasoning_record(replies: Sequence[Response]) -> dict[str, Any]:
    """What a judgment's details keep of the judge's reasoning over `replies` (a verdict may be
    read from several: a nudge, a retry): the traces joined, their tokens summed, and whether a
    reply ended inside its trace. Empty for a judge that did not reason, so the details of
    other judges stay as they were."""
    reasoned = [r for r in replies if r.reasoning or r.usage.reasoning_tokens]
    truncated = any(r.truncated_in_reasoning for r in replies)
    if not reasoned and not truncated:
        return {}
    record: dict[str, Any] = {
        "reasoning": "\n\n".join(r.reasoning for r in reasoned if r.reasoning),
        "reasoning_tokens": sum(r.usage.reasoning_tokens for r in reasoned),
    }
    if truncated:
        record["truncated_in_reasoning"] = True
    return record
