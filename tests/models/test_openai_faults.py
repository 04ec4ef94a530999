"""OpenAIBackend against a local server that misbehaves on purpose.

Each prompt names its fault, and the stub scripts it by attempt number, so what must happen to
every request is known exactly: how many attempts it takes, how it ends, which counter moves.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any

import pytest

from tests.models.helpers import png
from tests.servers import Call, OpenAIStub, Reply, free_port
from vlmscope.config import ImageBudget, OpenAIModelConfig
from vlmscope.messages import Request, Response, Status, user_request
from vlmscope.models.openai_compat import OpenAIBackend

KEY_ENV = "VLMSCOPE_TEST_API_KEY"
KEY = "sk-test-5ecret-4f9c1d"


def config(base_url: str, **fields: Any) -> OpenAIModelConfig:
    settings = {
        "backend": "openai", "name": "stub", "base_url": base_url, "model": "judge-model",
        "concurrency": 4, "timeout_s": 10.0, "max_retries": 2,
        "backoff_base_s": 0.01, "backoff_max_s": 1.0,
    }  # fmt: skip
    return OpenAIModelConfig.model_validate({**settings, **fields})


def scripted(call: Call) -> Reply | str:
    """Faults by prompt prefix; after the scripted failures every prompt gets its answer."""
    kind, attempt = call.prompt.split("-")[0], call.attempt
    if kind == "rate" and attempt == 1:
        return Reply(status=429, headers={"Retry-After": "0.2"}, body=b'{"error": "slow down"}')
    if kind == "flaky" and attempt <= 2:
        return Reply(status=500 + attempt, body=b"<html>upstream error</html>")
    if kind == "slow" and attempt == 1:
        return Reply(delay_s=60.0)  # the stub stops waiting when the client hangs up
    if kind == "garbled" and attempt == 1:
        return Reply(body=b'{"choices": [{"message": ')
    if kind == "empty" and attempt == 1:
        return Reply(body=b'{"choices": []}')
    if kind == "hangup" and attempt == 1:
        return Reply(hang_up=True)
    if kind == "dead":
        return Reply(status=503, body=b"down for maintenance")
    if kind == "forbidden":
        return Reply(status=403, body=b'{"error": "not allowed"}')
    if kind == "long":
        return Reply(status=400, body=b'{"error": {"code": "context_length_exceeded"}}')
    return f"answer to {call.prompt}"


# prompt kind -> (attempts, final status, retries counted under this cause)
EXPECTED = {
    "fine": (1, Status.OK, None),
    "rate": (2, Status.OK, "rate_limited"),
    "flaky": (3, Status.OK, "server_error"),
    "slow": (2, Status.OK, "timeout"),
    "garbled": (2, Status.OK, "bad_body"),
    "empty": (2, Status.OK, "bad_body"),
    "hangup": (2, Status.OK, "connection"),
    "dead": (3, Status.REQUEST_FAILED, "server_error"),
    "forbidden": (1, Status.REQUEST_FAILED, None),
    "long": (1, Status.CONTEXT_OVERFLOW, None),
}


def run(backend: OpenAIBackend, requests: Sequence[Request]) -> tuple[list[Response], list[int]]:
    chunk_sizes: list[int] = []
    seen: list[Response] = []

    def on_done(chunk: Sequence[Response]) -> None:
        chunk_sizes.append(len(chunk))
        seen.extend(chunk)

    responses = backend.generate(requests, on_done)
    assert seen == responses  # the chunks, concatenated, are the responses in order
    return responses, chunk_sizes


def test_every_request_ends_ok_or_counted_as_failed() -> None:
    prompts = [f"{kind}-{i}" for i in range(3) for kind in EXPECTED]
    with (
        OpenAIStub(scripted, latency_s=0.02) as stub,
        OpenAIBackend(config(stub.base_url, timeout_s=1.0)) as backend,
    ):
        responses, chunk_sizes = run(backend, [user_request(p) for p in prompts])
        assert len(responses) == len(prompts)
        for prompt, response in zip(prompts, responses, strict=True):
            attempts, status, _ = EXPECTED[prompt.split("-")[0]]
            assert (response.status, response.attempts) == (status, attempts), prompt
            assert len(stub.calls_for(prompt)) == attempts, prompt
            if status is Status.OK:
                assert response.text == f"answer to {prompt}"
                assert response.usage.prompt_tokens == 1 and response.usage.completion_tokens == 3
                assert response.latency_s > 0 and response.error is None
            else:
                assert response.text == "" and response.error
        assert "down for maintenance" in responses[prompts.index("dead-0")].error  # type: ignore[operator]
        assert "not retried" in responses[prompts.index("forbidden-0")].error  # type: ignore[operator]
        assert stub.max_in_flight == 4  # reached, never exceeded
        assert all(size >= 4 for size in chunk_sizes[:-1])

    retries = {
        "rate_limited": 3,
        "server_error": 6 + 6,
        "timeout": 3,
        "bad_body": 6,
        "connection": 3,
    }
    stats = backend.stats
    concurrency = {k: stats.pop(k) for k in list(stats) if k.startswith("concurrency_")}
    assert stats == {
        "requests": 30, "ok": 21, "failed": 6, "context_overflow": 3,
        "retries": sum(retries.values()), **{f"retries_{k}": v for k, v in retries.items()},
    }  # fmt: skip
    # each 429 sent after the last decrease lowers the limit once (4 -> 3 -> 2 -> 1 at most);
    # the 503s carry no Retry-After and say nothing about load
    assert 1 <= concurrency["concurrency_decreases"] <= 3
    assert concurrency["concurrency_max"] == 4
    assert 4 - concurrency["concurrency_decreases"] <= concurrency["concurrency_min"] < 4


def test_retry_after_is_honoured() -> None:
    with OpenAIStub(scripted) as stub, OpenAIBackend(config(stub.base_url)) as backend:
        responses, _ = run(backend, [user_request(f"rate-{i}") for i in range(3)])
        assert all(r.ok for r in responses)
        for i in range(3):
            first, second = stub.calls_for(f"rate-{i}")
            # the jitter alone is below 0.01 s: the wait comes from Retry-After (0.2 s)
            assert second.arrived - first.arrived >= 0.19
            assert responses[i].latency_s >= 0.19


def test_unreachable_server_is_retried_then_failed() -> None:
    dead_url = f"http://127.0.0.1:{free_port()}/v1"
    with OpenAIBackend(config(dead_url, max_retries=1)) as backend:
        (response,) = backend.generate([user_request("anyone?")])
    assert response.status is Status.REQUEST_FAILED and response.attempts == 2
    assert response.error and response.error.startswith("connection (after 2 attempts)")
    assert backend.stats["retries_connection"] == 1 and backend.stats["failed"] == 1


def echo_auth(call: Call) -> Reply | str:
    """A careless server that echoes the Authorization header in its errors and answers."""
    auth = call.headers.get("authorization", "")
    if call.prompt == "reject":
        return Reply(status=401, body=json.dumps({"error": f"bad token {auth}"}).encode())
    if call.prompt == "crash":
        return Reply(status=500, body=f"trace: headers={auth}".encode())
    return f"seen {auth}"


def test_api_key_is_sent_but_never_kept(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(KEY_ENV, KEY)
    with OpenAIStub(echo_auth) as stub:
        backend = OpenAIBackend(config(stub.base_url, api_key_env=KEY_ENV, max_retries=1))
        with backend:
            responses = backend.generate([user_request(p) for p in ("reject", "crash", "hello")])
            judged = asyncio.run(backend.agenerate(user_request("reject")))
        assert {c.headers["authorization"] for c in stub.calls} == {f"Bearer {KEY}"}
        assert [r.status for r in responses] == [Status.REQUEST_FAILED] * 2 + [Status.OK]
        assert "[redacted]" in (responses[0].error or "") and "[redacted]" in (judged.error or "")
        kept = [
            *(json.dumps(r.to_json()) for r in (*responses[:2], judged)),
            json.dumps(backend.identity), repr(backend), json.dumps(backend.stats),
            backend.config.model_dump_json(), caplog.text,
        ]  # fmt: skip
        assert caplog.text  # retries and failures were logged
        assert not [text for text in kept if KEY in text]
        assert KEY_ENV in backend.config.model_dump_json()  # the config holds the name only


def test_key_is_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with OpenAIStub() as stub, OpenAIBackend(config(stub.base_url, api_key_env=KEY_ENV)) as backend:
        (missing,) = backend.generate([user_request("first")])
        assert missing.status is Status.REQUEST_FAILED and KEY_ENV in (missing.error or "")
        assert stub.calls == []  # nothing was sent without the key
        monkeypatch.setenv(KEY_ENV, "sk-one")
        backend.generate([user_request("second")])
        monkeypatch.setenv(KEY_ENV, "sk-two")
        backend.generate([user_request("third")])
    assert [c.headers["authorization"] for c in stub.calls] == ["Bearer sk-one", "Bearer sk-two"]


def test_identity_names_what_changes_answers_only() -> None:
    base = OpenAIBackend(config("http://127.0.0.1:1/v1/", api_key_env=KEY_ENV))
    other_settings = OpenAIBackend(config("http://127.0.0.1:1/v1", concurrency=32, timeout_s=9))
    assert base.identity == other_settings.identity
    assert base.identity == {
        "backend": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "judge-model",
        "max_new_tokens": None, "image_budget": ImageBudget().model_dump(),
    }  # fmt: skip
    assert OpenAIBackend(config("http://x/v1", model="other")).identity != base.identity


def test_images_go_as_data_urls_within_the_budget() -> None:
    images = [png(12, 10, seed=s) for s in range(3)] + [png(40, 20, seed=9)]
    request = user_request(*images, "Which is red?", system="Answer with a letter.")
    budget = {"max_images": 2, "max_side": 20}
    with OpenAIStub() as stub, OpenAIBackend(config(stub.base_url, image_budget=budget)) as backend:
        (response,) = backend.generate([request])
    assert response.ok and response.usage.prompt_tokens == 4 + 3 + 16 * 2
    assert response.image_notes == (
        "dropped image 1 of 4",
        "dropped image 2 of 4",
        "resized image 4 from 40x20 to 20x10",
    )
    (call,) = stub.calls
    assert call.body is not None and set(call.body) == {
        "model",
        "messages",
        "max_tokens",
        "temperature",
    }
    system, user = call.body["messages"]
    assert system == {"role": "system", "content": "Answer with a letter."}
    assert [p["type"] for p in user["content"]] == ["image_url", "image_url", "text"]
    assert all(
        p["image_url"]["url"].startswith("data:image/png;base64,") for p in user["content"][:2]
    )


def test_judge_calls_from_several_event_loops_share_the_limit() -> None:
    with (
        OpenAIStub(latency_s=0.02) as stub,
        OpenAIBackend(config(stub.base_url, concurrency=3)) as backend,
    ):
        for round_number in range(2):  # each asyncio.run is a new event loop
            prompts = [f"round {round_number} item {i}" for i in range(12)]

            async def ask_all(prompts: list[str] = prompts) -> list[Response]:
                return await asyncio.gather(*(backend.agenerate(user_request(p)) for p in prompts))

            answers = asyncio.run(ask_all())
            assert [a.text for a in answers] == [f"echo: {p}" for p in prompts]
        assert stub.max_in_flight == 3


def test_generate_works_inside_a_running_event_loop() -> None:
    with OpenAIStub() as stub, OpenAIBackend(config(stub.base_url)) as backend:

        async def caller() -> list[Response]:
            return backend.generate([user_request("from a coroutine")])

        (response,) = asyncio.run(caller())
    assert response.text == "echo: from a coroutine"


def test_the_limit_is_reached_and_held_across_pool_shards() -> None:
    """10 slots over pool shards of 4 connections: all 10 are used, never an 11th."""
    with (
        OpenAIStub(latency_s=0.05) as stub,
        OpenAIBackend(config(stub.base_url, concurrency=10)) as backend,
    ):
        responses = backend.generate([user_request(f"q{i}") for i in range(60)])
        assert [r.text for r in responses] == [f"echo: q{i}" for i in range(60)]
        assert stub.max_in_flight == 10


def test_a_closed_backend_starts_afresh_on_the_next_call() -> None:
    with OpenAIStub() as stub:
        backend = OpenAIBackend(config(stub.base_url))
        for round_number in range(2):
            (response,) = backend.generate([user_request(f"round {round_number}")])
            assert response.text == f"echo: round {round_number}"
            backend.close()
        assert backend.stats["ok"] == 2


def test_no_requests_and_a_failing_callback() -> None:
    with OpenAIStub(latency_s=0.01) as stub, OpenAIBackend(config(stub.base_url)) as backend:
        assert backend.generate([]) == []

        def commit(chunk: Sequence[Response]) -> None:
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):  # the runner's error is not swallowed
            backend.generate([user_request(f"q{i}") for i in range(8)], commit)
        (after,) = backend.generate([user_request("still usable")])
        assert after.ok


def test_a_bug_of_ours_becomes_a_counted_failure_without_the_key(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_body(*args: Any) -> dict[str, Any]:
        raise RuntimeError(f"bug while holding {KEY}")

    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setattr("vlmscope.models.openai_prepared.request_body", broken_body)
    with OpenAIStub() as stub, OpenAIBackend(config(stub.base_url, api_key_env=KEY_ENV)) as backend:
        (response,) = backend.generate([user_request("anything")])
    assert response.status is Status.REQUEST_FAILED and "RuntimeError" in (response.error or "")
    assert backend.stats["failed"] == 1 and stub.calls == []
    assert "broken_body" in caplog.text  # the traceback is logged, scrubbed
    assert KEY not in caplog.text and KEY not in (response.error or "")


def test_context_overflow_retries_with_half_the_images():
    """The server accepts at most one image: 4 -> 2 -> 1 images, each overflow noted."""
    from vlmscope.messages import user_request

    def replier(call):
        content = call.body["messages"][-1]["content"]
        images = sum(1 for part in content if part["type"] == "image_url")
        if images > 1:
            return Reply(status=400, body=b'{"error": {"code": "context_length_exceeded"}}')
        return f"saw {images} image"

    with OpenAIStub(replier) as stub:
        config = OpenAIModelConfig(backend="openai", name="m", base_url=stub.base_url, model="m")
        backend = OpenAIBackend(config)
        try:
            [response] = backend.generate(
                [user_request(*(png(20, 20, i) for i in range(4)), "how many?")]
            )
        finally:
            backend.close()
    assert response.ok and response.text == "saw 1 image"
    assert response.image_notes[:2] == (
        "context overflow with 4 images; retrying with 2",
        "context overflow with 2 images; retrying with 1",
    )
    assert "dropped image 3 of 4" in response.image_notes  # the last image is the one kept
    assert response.attempts == 3
