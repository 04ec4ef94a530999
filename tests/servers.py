"""Local OpenAI-compatible servers for tests: a scripted stub and a real `transformers serve`.

`OpenAIStub` answers `/v1/chat/completions` by calling a replier with each call (its parsed body,
its headers, and how many times this exact conversation has been seen), so a test can script
faults per request (429 then success, a hang, garbled JSON) independent of arrival order. It is
a plain asyncio HTTP/1.1 server on 127.0.0.1 with an ephemeral port, in a daemon thread, and it
keeps what a test needs to assert on: every call, and the most calls it ever held at once.
A reply can also trickle its body (`Reply.drip_s`): each read gets bytes soon, the whole takes
long, which only a deadline on the whole request catches.

`transformers_serve` starts the real server on a local model directory, offline;
`tiny_llava_served` builds a tiny random-weight Llava and serves it (for a module fixture).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from vlmscope.models.loop_thread import LoopThread
from vlmscope.models.tiny import ensure_tiny_model


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a completion carrying `text`, or a fault."""

    text: str = "ok"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes | None = None  # sent instead of a completion (an error body, garbled JSON)
    delay_s: float = 0.0  # wait this long before answering (on top of the stub's latency)
    hang_up: bool = False  # close the connection without answering
    drip_s: float = 0.0  # send the body `drip_bytes` at a time, this long apart (a slow drip)
    drip_bytes: int = 1
    # a reasoning server: the trace in its own message field, and its tokens in the usage
    # (`completion_tokens_details.reasoning_tokens`, added to the completion's)
    reasoning: str | None = None
    reasoning_field: str = "reasoning_content"
    reasoning_tokens: int | None = None
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Call:
    """One request as the stub saw it."""

    body: dict[str, Any] | None  # None when the body is not JSON
    headers: dict[str, str]  # names lower-cased
    prompt: str  # the text of the last message, for repliers that key on it
    attempt: int  # 1 the first time this exact conversation arrives, 2 on its retry, ...
    arrived: float  # time.monotonic()


Replier = Callable[[Call], "Reply | str"]


def echo(call: Call) -> Reply:
    """The default replier: answers with the prompt, so a test can match replies to requests."""
    return Reply(text=f"echo: {call.prompt}")


class RateLimited:
    """A replier for a server with a capacity: `max_in_flight` requests at once, or
    `per_second` requests per second (a token bucket holding `burst`), or both. A request
    within it is answered by `inner` after `service_s` (times a uniform draw in [1 - jitter,
    1 + jitter], from `seed`: real service times vary); one beyond it gets 429 at once, with
    Retry-After (seconds, rounded up) and retry-after-ms: `retry_after_s` when set, else when
    the next slot or token frees. Use it with a stub of no latency of its own:

        with OpenAIStub(RateLimited(max_in_flight=4, service_s=0.05)) as stub: ...

    `max_in_flight` and `per_second` may be changed while the stub serves (a limit lifted or
    tightened); None is no limit. Counts what it accepted and refused.
    """

    def __init__(
        self,
        inner: Replier = echo,
        *,
        max_in_flight: int | None = None,
        per_second: float | None = None,
        burst: float = 1.0,
        service_s: float = 0.05,
        jitter: float = 0.0,
        retry_after_s: float | None = None,
        seed: int = 0,
    ) -> None:
        self.inner = inner
        self.max_in_flight = max_in_flight
        self.per_second = per_second
        self.burst = burst
        self.service_s = service_s
        self.jitter = jitter
        self.retry_after_s = retry_after_s
        self._rng = random.Random(seed)
        self.accepted = 0
        self.refused = 0
        self._finishing: list[float] = []  # when each accepted request in flight is answered
        self._tokens = burst
        self._refilled = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self, call: Call) -> Reply | str:
        with self._lock:
            service_s = self.service_s * self._rng.uniform(1 - self.jitter, 1 + self.jitter)
            wait = self._admit(time.monotonic(), service_s)
            if wait is None:
                self.accepted += 1
            else:
                self.refused += 1
        if wait is not None:
            wait = self.retry_after_s if self.retry_after_s is not None else wait
            headers = {"Retry-After": str(math.ceil(wait)),
                       "retry-after-ms": str(round(wait * 1000))}  # fmt: skip
            return Reply(status=429, headers=headers, body=b'{"error": "rate limited"}')
        reply = self.inner(call)
        reply = Reply(text=reply) if isinstance(reply, str) else reply
        return replace(reply, delay_s=reply.delay_s + service_s)

    def _admit(self, now: float, service_s: float) -> float | None:
        """None when the request is taken; else seconds until it would be."""
        self._finishing = [t for t in self._finishing if t > now]
        waits = []
        if self.max_in_flight is not None and len(self._finishing) >= self.max_in_flight:
            waits.append(min(self._finishing) - now)
        if self.per_second is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._refilled) * self.per_second)
            self._refilled = now
            if self._tokens < 1.0:
                waits.append((1.0 - self._tokens) / self.per_second)
        if waits:
            return max(waits)
        if self.per_second is not None:
            self._tokens -= 1.0
        self._finishing.append(now + service_s)
        return None


class OpenAIStub:
    """`with OpenAIStub(replier) as stub:` serves at `stub.base_url` until the block ends."""

    def __init__(self, replier: Replier = echo, *, latency_s: float = 0.0) -> None:
        self.replier = replier
        self.latency_s = latency_s
        self.calls: list[Call] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._loop = LoopThread("openai-stub")
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> OpenAIStub:
        self._server = self._loop.run(asyncio.start_server(self._connection, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._loop.run(_close(self._server))  # asyncio objects are not thread-safe
        self._loop.stop()  # cancels the connections still open

    def calls_for(self, prompt: str) -> list[Call]:
        return [c for c in self.calls if c.prompt == prompt]

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve requests on one keep-alive connection until the client closes it."""
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *lines = head.decode("latin-1").rstrip("\r\n").split("\r\n")
                headers = dict(_header(line) for line in lines if ":" in line)
                raw = await reader.readexactly(int(headers.get("content-length", "0")))
                path = request_line.split(" ")[1]
                if not await self._respond(path, headers, raw, reader, writer):
                    return
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            return  # the client left, or the stub is stopping
        finally:
            writer.close()

    async def _respond(
        self,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; False when the connection must be dropped."""
        if path.rstrip("/") == "/v1/models":
            await _write(writer, 200, {}, json.dumps({"object": "list", "data": []}).encode())
            return True
        if path.rstrip("/") != "/v1/chat/completions":
            await _write(writer, 404, {}, b'{"error": "not found"}')
            return True
        call = self._record(raw, headers)
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            try:
                reply = self.replier(call)
            except Exception as err:  # a bug in a test's replier shows up as a 500 saying so
                reply = Reply(status=500, body=f"stub replier failed: {err!r}".encode())
            reply = Reply(text=reply) if isinstance(reply, str) else reply
            if await _client_left_within(reader, self.latency_s + reply.delay_s) or reply.hang_up:
                return False
            body = reply.body if reply.body is not None else _completion(call, reply)
            if reply.drip_s > 0:
                return await _drip(reader, writer, reply, body)
            await _write(writer, reply.status, reply.headers, body)
            return True
        finally:
            with self._lock:
                self._in_flight -= 1

    def _record(self, raw: bytes, headers: dict[str, str]) -> Call:
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        messages = body.get("messages", []) if isinstance(body, dict) else []
        conversation = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        with self._lock:
            self._seen[conversation] += 1
            call = Call(
                body, headers, _last_text(messages), self._seen[conversation], time.monotonic()
            )
            self.calls.append(call)
        return call


async def _client_left_within(reader: asyncio.StreamReader, delay_s: float) -> bool:
    """Wait `delay_s`; True as soon as the client closes the connection (it gave up waiting).

    A client sends nothing more on a connection while it awaits the answer, so any read that
    returns is the end of the stream. Noticing it keeps `max_in_flight` to requests someone
    still waits for, as a real server's would be.
    """
    if delay_s <= 0:
        return False
    try:
        await asyncio.wait_for(reader.read(1), timeout=delay_s)
    except asyncio.TimeoutError:
        return False
    return True


async def _drip(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply, body: bytes
) -> bool:
    """The head at once, then the body a few bytes at a time: each read the client makes gets
    something soon, while the whole reply takes `len(body) / drip_bytes * drip_s`. Stops (False:
    drop the connection) as soon as the client hangs up."""
    await _write(writer, reply.status, reply.headers, b"", content_length=len(body))
    for start in range(0, len(body), max(1, reply.drip_bytes)):
        writer.write(body[start : start + max(1, reply.drip_bytes)])
        await writer.drain()
        if await _client_left_within(reader, reply.drip_s):
            return False
    return True


async def _close(server: asyncio.Server) -> None:
    server.close()


def _header(line: str) -> tuple[str, str]:
    name, value = line.split(":", 1)
    return name.strip().lower(), value.strip()


def _last_text(messages: list[Any]) -> str:
    if not messages:
        return ""
    content = messages[-1].get("content", "")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


def _completion(call: Call, reply: Reply) -> bytes:
    """A chat completion whose usage counts words (prompt) and 16 tokens per image, and the
    reply's reasoning trace and tokens when it has them."""
    text = reply.text
    messages = (call.body or {}).get("messages", [])
    words = images = 0
    for message in messages:
        content = message.get("content", "")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        words += sum(len(p.get("text", "").split()) for p in parts if p.get("type") == "text")
        images += sum(1 for p in parts if p.get("type") == "image_url")
    usage: dict[str, Any] = {"prompt_tokens": words + 16 * images,
                             "completion_tokens": len(text.split())}  # fmt: skip
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reply.reasoning is not None:
        message[reply.reasoning_field] = reply.reasoning
    if reply.reasoning_tokens is not None:
        usage["completion_tokens"] += reply.reasoning_tokens
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return json.dumps({
        "id": f"stub-{len(text)}",
        "object": "chat.completion",
        "model": (call.body or {}).get("model", ""),
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        "usage": usage,
    }).encode()  # fmt: skip


async def _write(
    writer: asyncio.StreamWriter,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    content_length: int | None = None,
) -> None:
    length = len(body) if content_length is None else content_length
    lines = [f"HTTP/1.1 {status} Stub", "Content-Type: application/json",
             f"Content-Length: {length}", *(f"{k}: {v}" for k, v in headers.items())]  # fmt: skip
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def transformers_serve(
    model_dir: Path, workdir: Path, *, start_timeout_s: float = 120.0
) -> Iterator[str]:
    """Run `transformers serve MODEL_DIR` offline on CPU; yields its base URL (".../v1").

    The server is pinned to `model_dir`: requests must name exactly `str(model_dir)` as model.
    Its HF_HOME is a fresh directory with `hub/` in it (without one the server answers 500).
    Raises RuntimeError with the server's output if it exits or does not answer in time.
    """
    hf_home = workdir / "hf_home"
    (hf_home / "hub").mkdir(parents=True, exist_ok=True)
    log_path = workdir / "serve.log"
    port = free_port()
    env = {**os.environ, "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "HF_HUB_DISABLE_UPDATE_CHECK": "1", "TOKENIZERS_PARALLELISM": "false"}  # fmt: skip
    command = [sys.executable, "-m", "transformers.cli.transformers", "serve", str(model_dir),
               "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]  # fmt: skip
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(process, base_url, log_path, start_timeout_s)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Served:
    base_url: str  # ".../v1"
    model: str  # the `model` every request must name: the served directory, exactly


@contextlib.contextmanager
def tiny_llava_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`transformers serve` on a tiny Llava (16 image tokens per image); for a fixture:

        @pytest.fixture(scope="module")
        def served(tmp_path_factory):
            with tiny_llava_served(tmp_path_factory) as served:
                yield served

    Skips the test, saying why, only when the serving extras are not installed.
    """
    from transformers.utils.import_utils import is_serve_available

    if not is_serve_available():
        pytest.skip("transformers serve needs fastapi, uvicorn, pydantic and openai installed")
    work = tmp_path_factory.mktemp("serve")
    model_dir = ensure_tiny_model(work / "tiny_llava", "llava")
    with transformers_serve(model_dir, work) as base_url:
        yield Served(base_url, str(model_dir))


def _wait_until_up(
    process: subprocess.Popen[bytes], base_url: str, log: Path, limit_s: float
) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"transformers serve exited ({process.returncode}):\n{_tail(log)}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base_url}/models", timeout=2.0).status_code < 500:
                return
        time.sleep(0.25)
    raise RuntimeError(f"transformers serve did not answer within {limit_s:g}s:\n{_tail(log)}")


def _tail(path: Path, chars: int = 3000) -> str:
    return path.read_text(errors="replace")[-chars:]
