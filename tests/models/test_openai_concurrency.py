"""OpenAIBackend's concurrency against servers that refuse what is over their capacity."""

from __future__ import annotations

import asyncio
import io
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.servers import Call, OpenAIStub, RateLimited, Reply
from vlmscope.cache import ResponseCache
from vlmscope.config import OpenAIModelConfig
from vlmscope.judges.client import Judge
from vlmscope.messages import user_request
from vlmscope.models import openai_prepared
from vlmscope.models.openai_compat import OpenAIBackend
from vlmscope.models.retry import BackoffPolicy, Cause, retry_delay_s


def config(base_url: str, **fields: Any) -> OpenAIModelConfig:
    settings = {
        "backend": "openai", "name": "stub", "base_url": base_url, "model": "m",
        "concurrency": 8, "timeout_s": 10.0, "max_retries": 30,
        "backoff_base_s": 0.01, "backoff_max_s": 0.5,
    }  # fmt: skip
    return OpenAIModelConfig.model_validate({**settings, **fields})


def test_concurrency_falls_under_sustained_429s_and_recovers_after() -> None:
    """A server that takes 2 at once: the limit falls from 8 to about 2 and, once the server
    takes any number, climbs back to 8; every request is answered either way."""
    server = RateLimited(max_in_flight=2, service_s=0.02)
    with OpenAIStub(server) as stub, OpenAIBackend(config(stub.base_url)) as backend:
        limited = backend.generate([user_request(f"limited {i}") for i in range(80)])
        assert all(r.ok for r in limited)
        during = backend.stats
        assert during["concurrency_min"] <= 2 and during["concurrency_final"] <= 3
        # the first burst is refused, then about one probe above 2 per window of 2 answers
        assert server.refused < server.accepted

        server.max_in_flight = None
        stub.max_in_flight = 0
        free = backend.generate([user_request(f"free {i}") for i in range(150)])
        assert all(r.ok for r in free)
        after = backend.stats
        assert after["concurrency_final"] == 8 and stub.max_in_flight == 8
        assert (
            after["concurrency_max"] == 8 and after["concurrency_min"] == during["concurrency_min"]
        )
        limits = [limit for _, limit in backend.concurrency_trace]
        lowest = limits.index(min(limits))
        # fell from the start (a probe may win a step back on the way down, as timing allows)
        assert limits[0] < 8 and limits[lowest] <= 2
        assert limits[lowest:][-1] == 8  # and climbed back
        assert after["retries_rate_limited"] == server.refused


def test_without_adaptation_the_same_server_refuses_far_more() -> None:
    """The comparison that shows what adapting saves: a fixed 8 against a capacity of 2."""
    refused = {}
    for adaptive in (True, False):
        server = RateLimited(max_in_flight=2, service_s=0.02)
        with (
            OpenAIStub(server) as stub,
            OpenAIBackend(config(stub.base_url, adaptive_concurrency=adaptive)) as backend,
        ):
            assert all(r.ok for r in backend.generate([user_request(f"q{i}") for i in range(60)]))
            refused[adaptive] = server.refused
            if not adaptive:
                assert backend.stats["concurrency_min"] == backend.stats["concurrency_final"] == 8
    assert refused[True] * 3 < refused[False]


def test_a_closed_quota_pauses_sending_until_retry_after() -> None:
    """A server that refuses everything for 0.4 s and says so: the limit drops to 1 and then
    nothing more is sent until Retry-After has passed, instead of spending every request's
    retries on it. The 0.4 s start at the first request, so a slow start (a loaded machine)
    cannot let the window pass before anything is sent."""
    opens: list[float] = []

    def quota(call: Call) -> Reply | str:
        if not opens:
            opens.append(time.monotonic() + 0.4)
        left = opens[0] - time.monotonic()
        if left > 0:
            return Reply(status=429, headers={"retry-after-ms": str(round(left * 1000))})
        return "fine"

    with OpenAIStub(quota) as stub, OpenAIBackend(config(stub.base_url)) as backend:
        responses = backend.generate([user_request(f"q{i}") for i in range(100)])
    assert all(r.ok for r in responses)
    refused = [c for c in stub.calls if c.arrived < opens[0]]
    assert len(refused) <= 8 + 7 + 6 + 5 + 4 + 3 + 2 + 1 + 5  # one burst per step down to 1
    assert backend.stats["concurrency_min"] == 1


def test_judges_share_the_adaptive_limit(tmp_path: Path) -> None:
    """Judge calls go through `agenerate`, so they adapt too."""
    server = RateLimited(max_in_flight=2, service_s=0.02)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with OpenAIStub(server) as stub, OpenAIBackend(config(stub.base_url)) as backend:
        judge = Judge(backend, cache)

        async def ask_all() -> list[bool]:
            answers = await asyncio.gather(
                *(judge.ask(user_request(f"judge {i}")) for i in range(60))
            )
            return [a.ok for a in answers]

        assert all(asyncio.run(ask_all()))
        assert backend.stats["concurrency_final"] <= 3
        assert backend.stats["concurrency_decreases"] >= 3
    assert judge.counts["asked"] == 60 and judge.counts["failed"] == 0
    cache.close()


def test_a_first_refusal_is_retried_when_the_server_said() -> None:
    """Retry-After 0.1 s: the first retry waits 0.1 to 0.2 s (the limit keeps the load down);
    a second refusal waits the backoff (here up to 1 s, never less than Retry-After); without
    adaptation every refusal waits the backoff."""
    policy = BackoffPolicy(max_retries=5, base_s=1.0, max_s=60.0)
    rng = random.Random(0)

    def delays(attempts: int, *, adaptive: bool) -> list[float]:
        return [
            retry_delay_s(attempts, Cause.RATE_LIMITED, 0.1, policy, rng, adaptive=adaptive)
            for _ in range(300)
        ]

    first, second = delays(1, adaptive=True), delays(2, adaptive=True)
    unadapted = delays(1, adaptive=False)
    assert min(first) >= 0.1 and max(first) <= 0.2
    for waits in (second, unadapted):
        assert min(waits) >= 0.1 and max(waits) <= 1.0 and sum(waits) / 300 > 0.4
    # other causes are unchanged: the backoff, with Retry-After as its floor
    other = retry_delay_s(1, Cause.SERVER_ERROR, 0.1, policy, rng, adaptive=True)
    assert 0.1 <= other <= 1.0


def _png(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), colour).save(buffer, "PNG")
    return buffer.getvalue()


def test_the_next_body_is_encoded_while_the_slot_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one slot, the second request's images are encoded while the first request is at
    the server, not after its answer: the server never waits on our encoding."""
    second_encoded = threading.Event()
    encoded_before_first_answer = []

    def replier(call: Call) -> Reply:
        if call.prompt == "first":  # holds the only slot until the second body is ready
            encoded_before_first_answer.append(second_encoded.wait(timeout=5))
        return Reply(text=f"echo: {call.prompt}")

    requests = [user_request(_png("red"), "first"), user_request(_png("blue"), "second")]
    settings = {"concurrency": 1, "adaptive_concurrency": False}
    with OpenAIStub(replier) as stub, OpenAIBackend(config(stub.base_url, **settings)) as backend:
        encode = openai_prepared.encode

        def watched(request: Any, *args: Any) -> Any:
            prepared = encode(request, *args)
            if request is requests[1]:
                second_encoded.set()
            return prepared

        monkeypatch.setattr(openai_prepared, "encode", watched)
        answers = backend.generate(requests)
    assert [a.text for a in answers] == ["echo: first", "echo: second"]
    assert encoded_before_first_answer == [True]
