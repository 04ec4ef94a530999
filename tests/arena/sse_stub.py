"""A local OpenAI-compatible server that streams its answers as server-sent events.

`tests/servers.OpenAIStub` answers with one JSON completion; the arena streams, so its tests
need a server that sends `data: {...}` chunks (`choices[0].delta.content`) and `data: [DONE]`,
as OpenAI's chat-completions stream does. Each answer is `reply(messages)` split into words,
one event per word, `chunk_delay_s` apart. The answers never carry the served model's name:
the tests check that no name reaches the page before the vote.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

from vlmscope.models.loop_thread import LoopThread

Reply = Callable[[list[dict[str, Any]]], str]


def last_user_text(messages: list[dict[str, Any]]) -> str:
    content = messages[-1]["content"] if messages else ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


def image_count(messages: list[dict[str, Any]]) -> int:
    return sum(
        1
        for m in messages
        if isinstance(m["content"], list)
        for p in m["content"]
        if p.get("type") == "image_url"
    )


class SSEStub:
    """`with SSEStub(reply) as stub:` serves at `stub.base_url`; `stub.bodies` holds every
    request body, in arrival order, `stub.max_in_flight` the most answers streamed at once.
    `fail` answers every request with a 500; `refuse_first` answers that many first requests
    with a 429 and `Retry-After: 0`."""

    def __init__(
        self,
        reply: Reply,
        *,
        chunk_delay_s: float = 0.0,
        fail: bool = False,
        refuse_first: int = 0,
    ) -> None:
        self.reply = reply
        self.chunk_delay_s = chunk_delay_s
        self.fail = fail
        self.refuse_first = refuse_first
        self.bodies: list[dict[str, Any]] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._loop = LoopThread("sse-stub")
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> SSEStub:
        self._server = self._loop.run(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._loop.run(_close(self._server))
        self._loop.stop()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (line.partition(":") for line in lines[1:] if ":" in line)
                }
                body = json.loads(await reader.readexactly(int(headers["content-length"])))
                with self._lock:
                    self.bodies.append(body)
                    refused = len(self.bodies) <= self.refuse_first
                if self.fail or refused:
                    error = b'{"error": "stub down"}'
                    status = b"429 Busy\r\nRetry-After: 0" if refused else b"500 Stub"
                    writer.write(
                        b"HTTP/1.1 "
                        + status
                        + b"\r\nContent-Type: application/json\r\n"
                        + f"Content-Length: {len(error)}\r\n\r\n".encode()
                        + error
                    )
                    await writer.drain()
                    continue
                with self._lock:
                    self._in_flight += 1
                    self.max_in_flight = max(self.max_in_flight, self._in_flight)
                try:
                    await self._stream(writer, self.reply(body["messages"]))
                finally:
                    with self._lock:
                        self._in_flight -= 1
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            return
        finally:
            writer.close()

    async def _stream(self, writer: asyncio.StreamWriter, text: str) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        words = text.split(" ")
        for k, word in enumerate(words):
            piece = word if k == 0 else " " + word
            event = {"choices": [{"index": 0, "delta": {"content": piece}}]}
            await _chunk(writer, f"data: {json.dumps(event)}\n\n".encode())
            if self.chunk_delay_s:
                await asyncio.sleep(self.chunk_delay_s)
        await _chunk(writer, b"data: [DONE]\n\n")
        await _chunk(writer, b"")


async def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    await writer.drain()


async def _close(server: asyncio.Server) -> None:
    server.close()
