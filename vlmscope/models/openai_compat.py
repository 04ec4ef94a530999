"""Any OpenAI-compatible `/v1/chat/completions` server as a backend (an API, vLLM, `transformers serve`).

Many requests are in flight at once, up to `concurrency`, over one pooled HTTP client. A
request never raises and is never dropped: transient trouble (429, 5xx, timeouts, dropped
connections, garbled replies) is retried with backoff (see `retry`), and what still fails comes
back as a REQUEST_FAILED response with a short reason, counted in `stats`. A server that refuses
a field of the body (a reasoning API refusing `max_tokens`) is told to no later request: every
body holds the field, so each fails at once, its error naming the config field to change
(`openai_request`).

The body is what the model config asks for (`openai_request.request_body`), and a reply's
reasoning trace, in a field of its own or between the config's reasoning tags, is split off
its answer (`reasoning`).

`concurrency` is the most requests in flight, not a fixed number: when the server refuses
requests (429, or Retry-After) the limit drops and it climbs back while requests succeed (AIMD,
see `concurrency`). Judges share it: they call `agenerate`, which takes the same slots.

The API key is read from the environment variable the config names, at call time, and goes
only into the Authorization header: never into a log, an error, a cache key or a result, and
any text that echoes it is redacted before it is kept.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import random
import time
import traceback
import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import httpx

from vlmscope.config import OpenAIModelConfig, set_options
from vlmscope.messages import Request, Response, Status
from vlmscope.models.base import ProgressCallback
from vlmscope.models.concurrency import AdaptiveSlots, AIMDPolicy, Slot
from vlmscope.models.http_lean import LeanClient, lean_client_for
from vlmscope.models.http_pool import ShardedTransport
from vlmscope.models.images import limit_images
from vlmscope.models.in_order import InOrderSink
from vlmscope.models.loop_thread import LoopThread
from vlmscope.models.openai_attempt import (
    MissingKey,
    api_key,
    failure,
    post_completion,
    redact,
    scrub,
)
from vlmscope.models.openai_prepared import Prepared, prepare, prepared, text_bodies
from vlmscope.models.reasoning import resolve_tags, with_reasoning
from vlmscope.models.retry import RETRYABLE, BackoffPolicy, Cause, retry_delay_s
from vlmscope.models.send_workers import answer_each, backing_off

logger = logging.getLogger(__name__)


class OpenAIBackend:
    """One pooled HTTP client (`http_lean`, or httpx behind a proxy) on a private event loop
    (`loop_thread`); call `close()` when done.

    `rng` draws the backoff jitter (pass a seeded one for reproducible waits in tests).
    `config.adaptive_concurrency` false holds the concurrency at `config.concurrency`.
    """

    def __init__(self, config: OpenAIModelConfig, *, rng: random.Random | None = None) -> None:
        self.name = config.name
        self.config = config
        self._policy = BackoffPolicy(
            config.max_retries, config.backoff_base_s, config.backoff_max_s
        )
        self._rng = rng or random.Random()
        self._loop = LoopThread(f"vlmscope-openai-{config.name}")
        # created and used on the loop's thread
        self._client: LeanClient | httpx.AsyncClient | None = None
        self._adaptive = config.adaptive_concurrency
        self._concurrency = AIMDPolicy(max_limit=config.concurrency)  # outlives the loop
        self._slots: AdaptiveSlots | None = None
        self._ready: asyncio.Semaphore | None = None
        # every key up front: `stats` may copy the dict from another thread while it counts
        self._counts = dict.fromkeys(_STAT_KEYS, 0)
        self._tags = resolve_tags(config.reasoning_tags)
        self._refused: str | None = None  # a body field the server refused: every body has it
        weakref.finalize(self, self._loop.stop)

    @property
    def identity(self) -> dict[str, Any]:
        """What changes the answers; not the key, concurrency, timeouts or retry settings."""
        return {
            "backend": "openai",
            "base_url": self.config.base_url.rstrip("/"),
            "model": self.config.model,
            "max_new_tokens": self.config.max_new_tokens,
            "image_budget": self.config.image_budget.model_dump(),
            **set_options(self.config),
        }

    @property
    def stats(self) -> dict[str, int]:
        """Requests, outcomes, retries by cause, and the concurrency limit's lowest, highest
        and current value and how often it moved, for the run summary."""
        return {**self._counts, **self._concurrency.summary()}

    @property
    def concurrency_trace(self) -> list[tuple[float, int]]:
        """(time.monotonic(), new limit) at each change of the concurrency limit."""
        return list(self._concurrency.trace)

    def __repr__(self) -> str:
        return f"OpenAIBackend(name={self.name!r}, model={self.config.model!r}, base_url={self.config.base_url!r})"

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        """Answer all requests concurrently; `on_done` runs on the caller's thread, in order.

        Responses reach `on_done` in request order, in chunks of at least `concurrency`
        (fewer at the end), so the runner commits them while later requests are in flight.
        """
        chunks: queue.SimpleQueue[Sequence[Response] | None] = queue.SimpleQueue()
        future = self._loop.submit(self._answer_all(requests, chunks.put))
        try:
            while (chunk := chunks.get()) is not None:
                if on_done is not None:
                    on_done(chunk)
            return future.result()
        except BaseException:
            future.cancel()  # the caller was interrupted or its callback failed
            raise

    async def _answer_all(
        self, requests: Sequence[Request], emit: Callable[[Sequence[Response] | None], None]
    ) -> list[Response]:
        """On the loop: answer everything, emitting finished in-order chunks, then None."""
        sink = InOrderSink(len(requests), emit, min_chunk=self.config.concurrency)
        bodies: list[Prepared | None] = []
        images: list[int] = []

        async def answer(item: tuple[int, Request]) -> None:
            index, request = item
            sink.put(index, await self._answer(request, bodies[index], images[index]))
            sink.flush()

        try:
            # counted once: the pool's size, the encoding ahead and each request's path read it
            images = [len(request.images) for request in requests]
            bodies = text_bodies(requests, images, self.config)
            await answer_each(enumerate(requests), answer, self._workers(images))
            sink.flush(force=True)
            return sink.all()
        finally:
            emit(None)

    def _workers(self, images: Sequence[int]) -> int:
        """One worker per slot when replies come in bursts (`send_workers`), if no request
        carries `images`; otherwise one per request. Image bodies are encoded ahead by requests
        still waiting for a slot (`_answer_with_retries`), which takes a task each. Below the
        bursts, each request's task is made, up to its wait for a slot, in one pass at the start
        (made one by one, each after the server's wait with caches gone cold: 0.06 ms of CPU a
        request more at C = 1)."""
        concurrency = self.config.concurrency
        if concurrency < _BURSTS_FROM or any(images):
            return len(images)
        return min(len(images), concurrency)

    async def agenerate(self, request: Request) -> Response:
        """One request from any event loop, sharing the client and the concurrency limit."""
        return await self._loop.run_async(self._answer(request))

    def close(self) -> None:
        """Close the connections and stop the loop thread; a later call starts them afresh."""
        if self._client is not None:
            self._loop.run(self._client.aclose())
            self._client = None
        self._slots = None
        self._ready = None
        self._loop.stop()

    def __enter__(self) -> OpenAIBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def _answer(
        self, request: Request, body: Prepared | None = None, images: int | None = None
    ) -> Response:
        """Every outcome of one request, including bugs in our own code, becomes a response.
        `body` is its body when encoded ahead, `images` its image count when counted."""
        self._counts["requests"] += 1
        try:
            images = len(request.images) if images is None else images
            if images:
                response = await self._answer_within_context(request, body, images)
            else:  # no image to drop on a context overflow, no ready room to wait in
                response = await self._send_with_retries(body or request, _nothing)
        except Exception as err:  # never lose a request to an unexpected error
            key = os.environ.get(self.config.api_key_env or "")
            trace = "".join(traceback.format_exception(err))
            logger.error("%s: unexpected error\n%s", self.name, scrub(trace, key))
            error = redact(repr(err), key)
            response = Response(text="", status=Status.REQUEST_FAILED, error=error)
        outcome = {Status.OK: "ok", Status.CONTEXT_OVERFLOW: "context_overflow"}
        self._counts[outcome.get(response.status, "failed")] += 1
        return response

    async def _answer_within_context(
        self, request: Request, body: Prepared | None, images: int
    ) -> Response:
        """On a context overflow, ask again with half the images, down to none, as the hf
        backend does; the response says which image counts overflowed."""
        response = await self._answer_with_retries(request, body, images)
        budget = self.config.image_budget
        shown = min(images, budget.max_images)
        notes: list[str] = []
        dropped: list[str] = []
        attempts = response.attempts
        while response.status is Status.CONTEXT_OVERFLOW and shown > 0:
            notes.append(f"context overflow with {shown} images; retrying with {shown // 2}")
            shown //= 2
            smaller, dropped = limit_images(request, shown, budget.max_side)
            response = await self._answer_with_retries(smaller, None, shown)
            attempts += response.attempts
        if not notes:
            return response
        image_notes = (*notes, *dropped, *response.image_notes)
        return replace(response, image_notes=image_notes, attempts=attempts)

    async def _answer_with_retries(
        self, request: Request, body: Prepared | None, images: int
    ) -> Response:
        """Encode the body outside the concurrency slots, then send it until it is answered or
        out of retries. Encoding (decoding, resizing, base64) is CPU work: inside a slot the
        server would wait on it. Up to `concurrency` requests are encoded ahead and wait for a
        slot (`_ready_room`), so the next bodies are ready when slots free, and no more: every
        other request waits unencoded, keeping memory bounded. A body without images (a retry
        after a context overflow that dropped them all) skips the room: it takes microseconds
        to encode once it has its slot."""
        if not images:
            return await self._send_with_retries(body or request, _nothing)
        room = self._ready_room()
        await room.acquire()
        waiting = True

        def sent() -> None:  # the body left the ready room for a slot (or was never needed)
            nonlocal waiting
            if waiting:
                waiting = False
                room.release()

        try:
            try:
                ready = await prepare(request, self.config)
            except ValueError as err:
                return Response(text="", status=Status.REQUEST_FAILED, error=str(err), attempts=0)
            return await self._send_with_retries(ready, sent)
        finally:
            sent()

    async def _send_with_retries(
        self, body: Prepared | Request, sent: Callable[[], None]
    ) -> Response:
        """`sent` is called when the body first gets a slot; a request not yet encoded is
        encoded then."""
        started = time.perf_counter()
        attempts = 0
        while True:
            try:
                key = api_key(self.config.api_key_env)
            except MissingKey as err:
                return Response(
                    text="", status=Status.REQUEST_FAILED, error=str(err), attempts=attempts
                )
            async with self._limit().slot(retry=attempts > 0) as slot:
                sent()
                try:
                    ready = prepared(body, self.config)
                except ValueError as err:
                    error = str(err)
                    return Response(text="", status=Status.REQUEST_FAILED, error=error, attempts=0)
                body = ready
                refused = self._refused
                if refused is None:
                    attempts += 1
                    result = await post_completion(
                        self._client_now(), ready.body, key, self.config.timeout_s,
                        ready.fields,
                    )  # fmt: skip
                    self._report(slot, result.cause, result.retry_after)
            if refused is not None:  # the same body field would be refused again: not sent
                error = f"{Cause.CLIENT_ERROR.value} (not sent): {refused}"
                return Response(
                    text="", status=Status.REQUEST_FAILED, error=error, attempts=attempts
                )
            elapsed = time.perf_counter() - started
            if result.cause is None:
                answered = Response(
                    result.text,
                    usage=result.usage,
                    latency_s=elapsed,
                    image_notes=ready.notes,
                    attempts=attempts,
                )
                return with_reasoning(
                    answered,
                    self._tags,
                    field=result.reasoning,
                    ended_by_limit=result.ended_by_limit,
                )
            if result.refused is not None:
                self._refused = result.refused
            cause = result.cause
            if cause not in RETRYABLE or attempts > self._policy.max_retries:
                failed = failure(cause, result.detail, attempts, elapsed, ready.notes)
                logger.warning("%s: request failed: %s", self.name, failed.error)
                return failed
            delay = retry_delay_s(
                attempts,
                cause,
                result.retry_after,
                self._policy,
                self._rng,
                adaptive=self._adaptive,
            )
            self._counts["retries"] += 1
            self._counts[f"retries_{cause.value}"] += 1
            logger.info(
                "%s: %s (%s); retry %d of %d in %.2fs",
                self.name,
                cause.value,
                result.detail,
                attempts,
                self._policy.max_retries,
                delay,
            )
            backing_off(+1)
            try:
                await asyncio.sleep(delay)
            finally:
                backing_off(-1)

    def _client_now(self) -> LeanClient | httpx.AsyncClient:
        """The lean client where it can serve the URL (a tenth of httpx's CPU per request:
        `http_lean`), else httpx (a proxy, a query in the base URL)."""
        if self._client is None and lean_client_for(self.config.base_url):
            self._client = LeanClient(self.config.base_url, max_idle=self.config.concurrency)
        elif self._client is None:
            self._client = httpx.AsyncClient(
                base_url=self.config.base_url.rstrip("/") + "/",
                timeout=self.config.timeout_s,
                transport=ShardedTransport(self.config.concurrency),
            )
        return self._client

    def _limit(self) -> AdaptiveSlots:
        if self._slots is None:
            self._slots = AdaptiveSlots(self._concurrency, fixed=not self._adaptive)
        return self._slots

    def _ready_room(self) -> asyncio.Semaphore:
        """Room for bodies encoded and waiting for their first slot (made on the loop)."""
        if self._ready is None:
            self._ready = asyncio.Semaphore(self.config.concurrency)
        return self._ready

    def _report(self, slot: Slot, cause: Cause | None, retry_after: float | None) -> None:
        """What the concurrency limit learns from one attempt: an answer, a refusal (429, or
        a retryable failure that says when to come back), or nothing (other failures)."""
        if cause is None:
            slot.answered()
        elif cause is Cause.RATE_LIMITED or (cause in RETRYABLE and retry_after is not None):
            capped = None if retry_after is None else min(retry_after, self._policy.max_s)
            slot.refused(capped)


# From this many requests in flight, replies arrive in bursts that a worker per slot serves
# sooner (0.94-0.95 of the ideal rate at 64 against 0.89-0.92, `benchmarks/api_concurrency.py`).
_BURSTS_FROM = 16


def _nothing() -> None:
    pass


_STAT_KEYS = (
    "requests",
    "ok",
    "failed",
    "context_overflow",
    "retries",
    *(f"retries_{cause.value}" for cause in sorted(RETRYABLE, key=lambda c: c.value)),
)
