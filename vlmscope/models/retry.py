"""When to retry an HTTP model call, and how long to wait first.

Pure functions, so the policy can be tested without a server or a clock. The policy is the usual
one for shared APIs: retry what is transient (rate limits, server errors, timeouts, dropped
connections, a garbled body), never what the server has judged to be our fault (other 4xx);
wait with exponential backoff and *full* jitter (a uniform draw below the exponential cap) so
that many clients hit by the same outage do not come back in lockstep; and when the server says
how long to wait (`Retry-After`), wait at least that long.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime


class Cause(str, enum.Enum):
    """Why an attempt did not produce an answer; each has its own retry counter."""

    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    BAD_BODY = "bad_body"
    CLIENT_ERROR = "client_error"
    CONTEXT_OVERFLOW = "context_overflow"


# How servers say a prompt does not fit: OpenAI's code and message, vLLM's input check
_OVERFLOW_PHRASES = (
    "context_length_exceeded",
    "maximum context length",
    "longer than the maximum model length",
)

RETRYABLE = frozenset(
    {Cause.RATE_LIMITED, Cause.SERVER_ERROR, Cause.TIMEOUT, Cause.CONNECTION, Cause.BAD_BODY}
)


@dataclass(frozen=True)
class BackoffPolicy:
    """`max_retries` retries after the first attempt; delays grow from `base_s`, capped at `max_s`."""

    max_retries: int = 5
    base_s: float = 1.0
    max_s: float = 60.0


def cause_of_status(status_code: int, body: str = "") -> Cause | None:
    """The cause for a non-2xx HTTP status (None for success).

    408 (the server timed out waiting for us) counts as a timeout. A 400 whose body says the
    prompt is too long is a context overflow: retrying the same request cannot help, but the
    caller may retry with fewer images, so it is told apart from other client errors.
    """
    if 200 <= status_code < 300:
        return None
    if status_code == 429:
        return Cause.RATE_LIMITED
    if status_code == 408:
        return Cause.TIMEOUT
    if status_code >= 500:
        return Cause.SERVER_ERROR
    lowered = body.lower()
    if any(phrase in lowered for phrase in _OVERFLOW_PHRASES):
        return Cause.CONTEXT_OVERFLOW
    return Cause.CLIENT_ERROR


def is_retryable(cause: Cause) -> bool:
    return cause in RETRYABLE


def retry_after_s(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait, or None if it did not say (or said nonsense).

    Reads `retry-after-ms` (sent by OpenAI and Azure, more precise) before `Retry-After`, which
    is either delta-seconds or an HTTP date. `headers` lookups must be case-insensitive (httpx's
    `Headers` are); a date in the past means "now" (0 s).
    """
    millis = _non_negative_float(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_float(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


def backoff_delay_s(
    retry_number: int,
    policy: BackoffPolicy,
    rng: random.Random,
    retry_after: float | None = None,
) -> float:
    """Seconds to sleep before retry number `retry_number` (1 for the first retry).

    Full jitter: uniform in [0, min(max_s, base_s * 2**(n-1))]. A server's `Retry-After` is a
    floor on that draw, itself capped at `max_s` so that a bogus header cannot stall a run for
    hours (if the server keeps refusing, the retry budget runs out and the request is counted
    as failed).
    """
    if retry_number < 1:
        raise ValueError(f"retry_number starts at 1, got {retry_number}")
    ceiling = min(policy.max_s, policy.base_s * 2.0 ** min(retry_number - 1, 62))
    delay = rng.uniform(0.0, ceiling)
    if retry_after is not None:
        delay = max(delay, min(retry_after, policy.max_s))
    return delay


def _non_negative_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    if number != number or number < 0 or number == float("inf"):  # NaN, negative, infinite
        return None
    return number


def retry_delay_s(
    attempts: int,
    cause: Cause,
    retry_after: float | None,
    policy: BackoffPolicy,
    rng: random.Random,
    *,
    adaptive: bool,
) -> float:
    """How long a request waits before its next attempt.

    While the concurrency limit adapts, a first refusal that says when to come back is retried
    then (plus up to as long again, so one burst's refusals do not all return at once): the
    lowered limit already keeps the load down, which is what the backoff's long random waits
    are for. A request refused again, and every other failure, waits the backoff (from its
    first step for a request's second refusal)."""
    if adaptive and cause is Cause.RATE_LIMITED and retry_after is not None:
        if attempts == 1:
            return min(retry_after * (1.0 + rng.random()), policy.max_s)
        attempts -= 1
    return backoff_delay_s(attempts, policy, rng, retry_after)
