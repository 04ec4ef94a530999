"""The models of the arena, each answering a conversation as a stream of text pieces.

An `openai` contestant streams: the chat-completions body `vlmscope.models.openai_payload`
builds (images as data URLs) plus `stream: true`, read as server-sent events (`data: {...}`
lines whose `choices[0].delta.content` is the next piece, `data: [DONE]` at the end). A
server that ignores `stream` and answers one JSON completion is read as one piece. An `hf`
contestant is the run's local backend (`vlmscope.models.registry`), answering in one piece; its
model is loaded before the arena offers a battle (`warm_up`), one model at a time, so two
contestants never load at once (their first loads raced in the libraries' lazy imports).

An `openai` contestant retries what is transient (rate limits, server errors, timeouts,
dropped connections, a garbled body) as the run's backend does (`vlmscope.models.retry`: the
config's `max_retries` and backoff, `Retry-After` honoured), but only until the first piece
has reached the page: after that the user has seen part of an answer, and a second attempt
would show a different one. A failure that is not retried raises `ContestantFailed`; its message
stays in the server log and never reaches the page (an error text can carry a URL or a model
name). The API key is read as the run's backend reads it (`vlmscope.models.openai_attempt`):
from the variable the config names, at each request; a variable that is not set is `MissingKey`,
and nothing is sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol

import httpx

from vlmscope.arena.config import Sampling
from vlmscope.config import HFModelConfig, OpenAIModelConfig
from vlmscope.messages import GenerationParams, Request
from vlmscope.models.base import Backend, LoopLocal
from vlmscope.models.openai_attempt import api_key
from vlmscope.models.openai_payload import BadBody, chat_body, parse_completion
from vlmscope.models.retry import (
    BackoffPolicy,
    Cause,
    backoff_delay_s,
    cause_of_status,
    is_retryable,
    retry_after_s,
)


class ContestantFailed(RuntimeError):
    """A contestant gave no answer (connection, status, body); for the log only. `cause` says
    whether another attempt may help; `retry_after` is the server's own wait, if it gave one."""

    def __init__(
        self, message: str, cause: Cause | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.cause = cause
        self.retry_after = retry_after


class Contestant(Protocol):
    name: str

    def stream(self, request: Request) -> AsyncIterator[str]:
        """The answer to `request` piece by piece."""
        ...


def params(sampling: Sampling) -> GenerationParams:
    return GenerationParams(
        max_new_tokens=sampling.max_new_tokens, temperature=sampling.temperature
    )


class OpenAIContestant:
    def __init__(self, config: OpenAIModelConfig, sampling: Sampling) -> None:
        self.name = config.name
        self.config = config
        self.sampling = sampling
        self._rng = random.Random()  # backoff jitter
        # one client (one connection pool) per event loop: making a client costs more than a
        # request to a local server, and the Space answers every battle on one loop
        self._client = LoopLocal(
            lambda: httpx.AsyncClient(
                timeout=httpx.Timeout(config.timeout_s),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
            )
        )

    async def stream(self, request: Request) -> AsyncIterator[str]:
        """The answer piece by piece; a transient failure before the first piece is retried."""
        policy = BackoffPolicy(
            self.config.max_retries, self.config.backoff_base_s, self.config.backoff_max_s
        )
        retry = 0
        while True:
            shown = False
            try:
                async for piece in self._attempt(request):
                    shown = True
                    yield piece
                return
            except ContestantFailed as failure:
                retry += 1
                transient = failure.cause is not None and is_retryable(failure.cause)
                if shown or not transient or retry > policy.max_retries:
                    raise
                await asyncio.sleep(backoff_delay_s(retry, policy, self._rng, failure.retry_after))

    async def _attempt(self, request: Request) -> AsyncIterator[str]:
        body: dict[str, Any] = {
            **chat_body(request, self.config.model, self.config.max_new_tokens),
            "stream": True,
        }
        if self.sampling.top_p is not None:
            body["top_p"] = self.sampling.top_p
        url = self.config.base_url.rstrip("/") + "/chat/completions"
        key = api_key(self.config.api_key_env)  # MissingKey: a config error, never retried
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        client = self._client.get()
        try:
            async with client.stream("POST", url, json=body, headers=headers) as reply:
                if reply.status_code >= 400:
                    text = (await reply.aread()).decode("utf-8", "replace")
                    raise ContestantFailed(
                        f"{self.name}: HTTP {reply.status_code}",
                        cause_of_status(reply.status_code, text),
                        retry_after_s(reply.headers),
                    )
                if "text/event-stream" not in reply.headers.get("content-type", ""):
                    text, _ = parse_completion(await reply.aread())
                    yield text
                    return
                async for piece in sse_pieces(reply.aiter_lines()):
                    yield piece
        except httpx.TimeoutException as err:
            raise ContestantFailed(f"{self.name}: {err!r}", Cause.TIMEOUT) from err
        except httpx.HTTPError as err:
            raise ContestantFailed(f"{self.name}: {err!r}", Cause.CONNECTION) from err
        except (BadBody, ValueError) as err:
            raise ContestantFailed(f"{self.name}: {err!r}", Cause.BAD_BODY) from err


async def sse_pieces(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The text pieces of an OpenAI chat-completions event stream."""
    async for line in lines:
        if not line.startswith("data:"):
            continue  # comments, event names, blank separators
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            return
        event = json.loads(data)
        if "error" in event:
            raise ContestantFailed(f"stream error: {str(event['error'])[:200]}")
        for choice in event.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                yield piece


class BackendContestant:
    """Any `vlmscope.models` backend (a local `hf` model): the whole answer as one piece."""

    def __init__(self, name: str, backend: Backend) -> None:
        self.name = name
        self.backend = backend

    def warm(self) -> None:
        """Load the backend's model now, when it has one to load."""
        load = getattr(self.backend, "load", None)
        if callable(load):
            with _LOADING:
                load()

    async def stream(self, request: Request) -> AsyncIterator[str]:
        response = await self.backend.agenerate(request)
        if not response.ok:
            raise ContestantFailed(f"{self.name}: {response.status.value}: {response.error}")
        yield response.text


log = logging.getLogger(__name__)
_LOADING = threading.Lock()
"""Held while a contestant's model loads: one load at a time in the process."""


def warm_up(contestants: Mapping[str, Contestant]) -> None:
    """Load every local contestant's model, one after another, before any battle."""
    for contestant in contestants.values():
        if isinstance(contestant, BackendContestant):
            try:
                contestant.warm()
            except Exception:  # its battles fail (and are logged) as before; the others run
                log.exception("contestant %s: the model does not load", contestant.name)


def build_contestant(config: OpenAIModelConfig | HFModelConfig, sampling: Sampling) -> Contestant:
    if isinstance(config, OpenAIModelConfig):
        return OpenAIContestant(config, sampling)
    from vlmscope.models.registry import build_backend

    return BackendContestant(config.name, build_backend(config))
