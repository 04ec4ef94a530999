"""The one judge client every track uses.

A judge is any backend (an OpenAI-compatible API, a local model). What this adds is the cache:
a judgment is keyed like a model response, by the judge backend's identity (model and
parameters) and the full request (the prompt template's text is part of the prompt, so a new
template version is a new key). Re-running a config re-asks nothing already judged.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from vlmscope.cache import ResponseCache
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Request, Response, cache_key, effective_max_new_tokens
from vlmscope.models.base import Backend, LoopLocal


class Judge:
    def __init__(self, backend: Backend, cache: ResponseCache, *, max_in_flight: int = 16) -> None:
        self.backend = backend
        self.cache = cache
        self.counts: Counter[str] = Counter()
        self._limit = LoopLocal(lambda: asyncio.Semaphore(max_in_flight))

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def identity(self) -> dict[str, Any]:
        return self.backend.identity

    def describe(self, settings: JudgeSettings) -> dict[str, Any]:
        """The judge and the limits its replies were actually given, for a run's summary."""
        cap = self.backend.identity.get("max_new_tokens")
        return {
            "judge": self.backend.name,
            "max_new_tokens": effective_max_new_tokens(settings.max_new_tokens, cap),
            "temperature": settings.temperature,
        }

    async def ask(self, request: Request, *, attempt: int = 0) -> Response:
        """Return the judge's response, from the cache when this exact request was judged.

        `attempt` > 0 asks the same request again as a separate cached call (a benchmark whose
        official rule re-asks a reply without a verdict must not get the cached reply back)."""
        identity = self.backend.identity
        key = cache_key(identity if attempt == 0 else {**identity, "attempt": attempt}, request)
        cached = self.cache.get(key)
        if cached is not None and cached.ok:
            self.counts["cached"] += 1
            return cached
        async with self._limit.get():
            response = await self.backend.agenerate(request)
        self.cache.put_many({key: response}, backend=self.backend.name)
        self.counts["asked"] += 1
        if not response.ok:
            self.counts["failed"] += 1
        return response
