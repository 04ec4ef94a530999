"""The retry policy: what is retried, how long to wait, and how Retry-After is read."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import httpx
import pytest

from vlmscope.models.retry import (
    BackoffPolicy,
    Cause,
    backoff_delay_s,
    cause_of_status,
    is_retryable,
    retry_after_s,
)

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("status", "body", "cause", "retryable"),
    [
        (200, "", None, None),
        (429, "", Cause.RATE_LIMITED, True),
        (500, "", Cause.SERVER_ERROR, True),
        (503, "", Cause.SERVER_ERROR, True),
        (408, "", Cause.TIMEOUT, True),
        (400, "bad field", Cause.CLIENT_ERROR, False),
        (401, "", Cause.CLIENT_ERROR, False),
        (404, "", Cause.CLIENT_ERROR, False),
        (400, '{"code": "context_length_exceeded"}', Cause.CONTEXT_OVERFLOW, False),
        (400, "This model's maximum context length is 8192", Cause.CONTEXT_OVERFLOW, False),
        (
            400,
            "The decoder prompt (length 9254) is longer than the maximum model length of 4096.",
            Cause.CONTEXT_OVERFLOW,
            False,
        ),
    ],
)
def test_cause_of_status(status: int, body: str, cause: Cause | None, retryable: bool) -> None:
    assert cause_of_status(status, body) == cause
    if cause is not None:
        assert is_retryable(cause) is retryable


def test_transport_causes_are_retryable() -> None:
    for cause in (Cause.TIMEOUT, Cause.CONNECTION, Cause.BAD_BODY):
        assert is_retryable(cause)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "3"}, 3.0),
        ({"Retry-After": "0.2"}, 0.2),
        ({"Retry-After": " 7 "}, 7.0),
        ({"Retry-After": "Wed, 01 May 2024 12:00:30 GMT"}, 30.0),
        ({"Retry-After": "Wed, 01 May 2024 11:59:00 GMT"}, 0.0),  # in the past: now
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-5"}, None),
        ({"Retry-After": "nan"}, None),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),  # the precise one wins
        ({"retry-after-ms": "junk", "Retry-After": "9"}, 9.0),
    ],
)
def test_retry_after_s(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_s(httpx.Headers(headers), now=NOW) == expected


def test_delays_grow_exponentially_under_a_cap_with_full_jitter() -> None:
    policy = BackoffPolicy(max_retries=10, base_s=1.0, max_s=8.0)
    rng = random.Random(0)
    for retry_number, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)]:
        draws = [backoff_delay_s(retry_number, policy, rng) for _ in range(400)]
        assert all(0.0 <= d <= ceiling for d in draws)
        # full jitter spreads over the whole range, not just near the ceiling
        assert min(draws) < 0.1 * ceiling and max(draws) > 0.9 * ceiling


def test_same_seed_same_delays() -> None:
    policy = BackoffPolicy()
    first = [backoff_delay_s(n, policy, random.Random(7)) for n in range(1, 6)]
    again = [backoff_delay_s(n, policy, random.Random(7)) for n in range(1, 6)]
    assert first == again


def test_retry_after_is_a_floor_capped_at_max() -> None:
    policy = BackoffPolicy(base_s=0.01, max_s=5.0)
    rng = random.Random(1)
    assert all(backoff_delay_s(1, policy, rng, retry_after=0.2) >= 0.2 for _ in range(100))
    assert backoff_delay_s(1, policy, rng, retry_after=3600.0) == 5.0
    # a larger jitter draw still wins over a small Retry-After
    big = BackoffPolicy(base_s=100.0, max_s=100.0)
    assert max(backoff_delay_s(1, big, rng, retry_after=0.2) for _ in range(50)) > 1.0


def test_huge_retry_numbers_do_not_overflow() -> None:
    assert backoff_delay_s(5000, BackoffPolicy(max_s=2.0), random.Random(0)) <= 2.0


def test_retry_numbers_start_at_one() -> None:
    with pytest.raises(ValueError):
        backoff_delay_s(0, BackoffPolicy(), random.Random(0))
