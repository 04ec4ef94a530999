"""The lean HTTP client reads every reply framing a server may use, reuses only connections
that finished cleanly, and names what went wrong; `lean_client_for` leaves proxies to httpx."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from vlmscope.models.http_lean import LeanClient, LeanError, lean_client_for

Script = Callable[[bytes], bytes | None]  # request head -> raw reply (None: hang up)


@asynccontextmanager
async def raw_server(
    script: Script, seen: list[bytes], *, close_after: bool = False
) -> AsyncIterator[str]:
    """Answers each request with `script(head)` as raw bytes; closes after an unframed reply,
    when the script says None, or after every reply with `close_after`. `seen` gets each request's head, and b"open" per connection."""

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(b"open")
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1]) for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )  # fmt: skip
                await reader.readexactly(length)
                seen.append(head)
                reply = script(head)
                if reply is None:
                    return
                writer.write(reply)
                await writer.drain()
                unframed = (
                    b"content-length" not in reply.lower() and b"chunked" not in reply.lower()
                )
                if unframed or close_after:
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()

    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.close()


def framed(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def post_all(
    script: Script, count: int = 1, *, close_after: bool = False
) -> tuple[list[bytes], list[bytes]]:
    """The bodies of `count` POSTs in turn on one client, and what the server saw."""
    seen: list[bytes] = []
    async with raw_server(script, seen, close_after=close_after) as url:
        client = LeanClient(url, max_idle=2)
        replies = [await client.post("chat/completions", b"{}", {}) for _ in range(count)]
        await client.aclose()
    return [r.content for r in replies], seen


def test_request_line_host_and_keep_alive() -> None:
    contents, seen = asyncio.run(post_all(lambda head: framed(b'{"a": 1}'), count=3))
    assert contents == [b'{"a": 1}'] * 3
    assert seen.count(b"open") == 1  # one connection carried all three
    head = seen[1].decode()
    assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n")
    assert "Host: 127.0.0.1:" in head and "Content-Length: 2" in head


def test_chunked_gzip_deflate_and_unframed_bodies() -> None:
    chunked = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"4;ext=1\r\nabcd\r\n3\r\nefg\r\n0\r\nX-Trailer: 1\r\n\r\n")  # fmt: skip
    replies = iter([
        b"HTTP/1.1 100 Continue\r\n\r\n" + framed(b"after continue"),
        chunked,
        framed(gzip.compress(b"zipped"), "Content-Encoding: gzip"),
        framed(zlib.compress(b"deflated"), "Content-Encoding: deflate"),
        b"HTTP/1.0 200 OK\r\n\r\nread to the end",
    ])  # fmt: skip
    contents, seen = asyncio.run(post_all(lambda head: next(replies), count=5))
    assert contents == [b"after continue", b"abcdefg", b"zipped", b"deflated", b"read to the end"]
    assert seen.count(b"open") == 1


def test_connection_close_and_stale_idle_connections_are_not_reused() -> None:
    replies = iter([framed(b"one", "Connection: close"), framed(b"two"), None, framed(b"three")])
    seen: list[bytes] = []

    def script(head: bytes) -> bytes | None:
        return next(replies)

    async def run() -> list[bytes]:
        async with raw_server(script, seen) as url:
            client = LeanClient(url, max_idle=1)
            first = await client.post("chat/completions", b"{}", {})
            second = await client.post("chat/completions", b"{}", {})
            with pytest.raises(LeanError, match="without sending a reply"):
                await client.post("chat/completions", b"{}", {})
            third = await client.post("chat/completions", b"{}", {})
            return [first.content, second.content, third.content]

    assert asyncio.run(run()) == [b"one", b"two", b"three"]
    assert seen.count(b"open") == 3  # after the close, and after the hang-up


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (b"SPDY/3 200 OK\r\n\r\n", "bad status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "bad header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "cut short after 5 bytes of 10"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "bad Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
        (framed(b"not gzip", "Content-Encoding: gzip"), "DecodingError: gzip"),
        (framed(b"x", "Content-Encoding: br"), "unsupported Content-Encoding"),
    ],
)
def test_malformed_replies_raise_lean_errors_naming_the_fault(reply: bytes, message: str) -> None:
    with pytest.raises(LeanError, match=message):
        asyncio.run(post_all(lambda head: reply, close_after=True))


def test_a_refused_connection_is_a_connect_error() -> None:
    async def run() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        await LeanClient(f"http://127.0.0.1:{port}/v1", max_idle=1).post("x", b"", {})

    with pytest.raises(LeanError, match="ConnectError"):
        asyncio.run(run())


def test_reply_status_headers_and_text() -> None:
    async def run() -> tuple[int, dict[str, str], str, bool]:
        reply_bytes = framed(b'{"error": "slow down"}', "Retry-After: 2", "X-A: 1", "x-a: 2",
                             status="429 Too Many Requests")  # fmt: skip
        async with raw_server(lambda head: reply_bytes, []) as url:
            reply = await LeanClient(url, max_idle=1).post("chat/completions", b"{}", {})
        return reply.status_code, reply.headers, reply.text, reply.is_success

    status, headers, text, success = asyncio.run(run())
    assert (status, success, text) == (429, False, '{"error": "slow down"}')
    assert headers["retry-after"] == "2" and headers["x-a"] == "1, 2"


def test_proxies_queries_and_credentials_go_to_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    assert lean_client_for("http://127.0.0.1:8000/v1")
    assert lean_client_for("https://api.example.com/v1")
    assert not lean_client_for("https://example.com/v1?api-version=1")
    assert not lean_client_for("https://user:pw@example.com/v1")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert not lean_client_for("https://api.example.com/v1")
    assert lean_client_for("http://127.0.0.1:8000/v1")  # the proxy is for https only
    monkeypatch.setenv("NO_PROXY", "api.example.com")
    assert lean_client_for("https://api.example.com/v1")
