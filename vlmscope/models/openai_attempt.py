"""One POST to a chat-completions endpoint, classified for the retry policy.

Everything that touches the API key lives here: it is read from the environment when a request
is sent (so a rotated key is picked up and no object holds it), it goes only into the
Authorization header, and every piece of server or exception text that is kept passes through
`redact` first, because a careless server may echo the header back in an error body.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from vlmscope.messages import Response, Status, Usage
from vlmscope.models.http_lean import LeanClient, LeanError, LeanReply
from vlmscope.models.openai_payload import BadBody, parse_reply
from vlmscope.models.openai_request import refusal_hint
from vlmscope.models.retry import Cause, cause_of_status, retry_after_s

_DETAIL_CHARS = 200
T = TypeVar("T")


class MissingKey(ValueError):
    """The config names an API-key variable that the environment does not hold."""


@dataclass(frozen=True)
class Attempt:
    """An answer (`cause` None), or why there was none and how long the server asked us to wait.

    `refused` says which config field to change when the server refused a field of the body
    (`openai_request.refusal_hint`); every request of the same config would be refused alike.
    """

    text: str = ""
    usage: Usage = Usage()
    cause: Cause | None = None
    detail: str = ""
    retry_after: float | None = None
    reasoning: str = ""
    ended_by_limit: bool = False
    refused: str | None = None


def api_key(env_name: str | None) -> str | None:
    """The key in `env_name` now; None when no variable is configured (a local server)."""
    if env_name is None:
        return None
    key = os.environ.get(env_name)
    if not key:
        raise MissingKey(f"environment variable {env_name} (the API key) is not set")
    return key


async def post_completion(
    client: LeanClient | httpx.AsyncClient,
    body: bytes,
    key: str | None,
    timeout_s: float,
    fields: Sequence[str] = (),
) -> Attempt:
    """POST `body` to `chat/completions`, bounded by `timeout_s` from first to last byte;
    `fields` are the body's top-level field names, for a refusal that names one."""
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    sent: Coroutine[Any, Any, LeanReply | httpx.Response]
    if isinstance(client, LeanClient):
        sent = client.post("chat/completions", body, headers)
    else:
        sent = client.post("chat/completions", content=body, headers=headers)
    try:
        reply: LeanReply | httpx.Response = await _within(sent, timeout_s)
    except (asyncio.TimeoutError, httpx.TimeoutException):
        return Attempt(cause=Cause.TIMEOUT, detail=f"no reply within {timeout_s:g}s")
    except (httpx.TransportError, LeanError) as err:  # a LeanError's text names its kind
        kind = "" if isinstance(err, LeanError) else f"{type(err).__name__}: "
        return Attempt(cause=Cause.CONNECTION, detail=redact(f"{kind}{err}", key))
    if not reply.is_success:
        cause = cause_of_status(reply.status_code, reply.text) or Cause.CLIENT_ERROR
        hint = None
        if cause is Cause.CLIENT_ERROR:
            hint = refusal_hint(reply.status_code, reply.text, dict.fromkeys(fields))
        detail = redact(f"HTTP {reply.status_code}: {reply.text}", key)
        return Attempt(
            cause=cause,
            detail=detail if hint is None else f"{hint} ({detail})",
            retry_after=retry_after_s(reply.headers),
            refused=hint,
        )
    try:
        completion = parse_reply(reply.content)
    except BadBody as err:
        return Attempt(cause=Cause.BAD_BODY, detail=str(err))
    return Attempt(
        text=completion.text,
        usage=completion.usage,
        reasoning=completion.reasoning,
        ended_by_limit=completion.ended_by_limit,
    )


async def _within(sent: Awaitable[T], timeout_s: float) -> T:
    """`sent`, cancelled after `timeout_s` with `asyncio.TimeoutError`.

    On 3.11+ a timer on the loop cancels the request's own task, as `asyncio.timeout` does,
    without its context-manager object: one request at a time, each of its steps runs with cold
    caches after the server's wait, and the object cost 0.02 ms of CPU per request there.
    A cancellation from outside (the caller gave up) stays a cancellation: only when this timer
    fired, and no other cancellation is pending on the task, does it become a timeout.
    `wait_for` (before 3.11) wraps `sent` in a task of its own instead.
    """
    if sys.version_info < (3, 11):
        return await asyncio.wait_for(sent, timeout=timeout_s)
    task = asyncio.current_task()
    if task is None:
        raise RuntimeError("a request's timeout needs a task to cancel")
    fired: list[bool] = []

    def expire() -> None:
        fired.append(True)
        task.cancel()

    timer = task.get_loop().call_later(timeout_s, expire)
    try:
        return await sent
    except asyncio.CancelledError:
        if fired and task.uncancel() == 0:
            raise asyncio.TimeoutError from None
        raise
    finally:
        timer.cancel()


def failure(
    cause: Cause, detail: str, attempts: int, elapsed: float, notes: tuple[str, ...]
) -> Response:
    """The response of a request that failed for good: its cause, how often it was tried and
    the server's words; a context overflow keeps its own status (the caller may drop images)."""
    status = Status.CONTEXT_OVERFLOW if cause is Cause.CONTEXT_OVERFLOW else Status.REQUEST_FAILED
    tries = f"after {attempts} attempts" if attempts > 1 else "not retried"
    return Response(
        text="",
        status=status,
        error=f"{cause.value} ({tries}): {detail}",
        latency_s=elapsed,
        image_notes=notes,
        attempts=attempts,
    )


def scrub(text: str, key: str | None) -> str:
    """`text` with every copy of `key` replaced."""
    return text.replace(key, "[redacted]") if key and len(key) >= 4 else text


def redact(text: str, key: str | None) -> str:
    """`text` scrubbed of `key`, on one line, at most a few hundred characters."""
    text = " ".join(scrub(text, key).split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 3] + "..."
