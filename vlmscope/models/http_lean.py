"""A small HTTP/1.1 client for one endpoint: keep-alive connections on asyncio streams.

An API backend sends thousands of identical POSTs to one URL, many at once. Through httpx each
one costs 1-1.5 ms of CPU (URL parsing, header models, the connection pool's scans, anyio's
cancel scopes), which caps a client at a few hundred requests per second before the server is
the limit (`benchmarks/api_concurrency.py`). This client does only what those requests need:
one host, POST with a known body, replies framed by Content-Length, chunked or end of stream,
gzip or deflate bodies, TLS with httpx's default trust store, idle connections kept up to the
backend's concurrency. No redirects (httpx follows none by default either) and no proxies:
`lean_client_for` says when a URL needs httpx instead (a proxy in the environment, a query or
credentials in the base URL).
aiohttp, timed in the same benchmark (`--transport aiohttp`) on the same uvloop loop, spends
2-2.9x this client's CPU per request at every concurrency.

Failures raise `LeanError` (connection refused, reset, a reply cut short or malformed); the
caller bounds the whole exchange in time. A connection is reused only after a complete reply,
and one that was cancelled or failed is closed, so no reply is ever read for the wrong request.
"""

from __future__ import annotations

import asyncio
import ssl
import urllib.request
import zlib
from collections import deque
from dataclasses import dataclass
from urllib.parse import urlsplit

_CRLF = b"\r\n"
_HEAD_END = b"\r\n\r\n"


class LeanError(Exception):
    """The exchange failed below HTTP: no complete reply came back on the connection."""


@dataclass(frozen=True)
class LeanReply:
    """A reply's status, headers (names lower-cased) and decoded body."""

    status_code: int
    headers: dict[str, str]
    content: bytes

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def lean_client_for(base_url: str) -> bool:
    """True when `base_url` can be served by `LeanClient`: http or https, no query or
    credentials, and no proxy configured for it in the environment."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.query or parts.username or parts.password:
        return False
    proxies = urllib.request.getproxies()
    wanted = proxies.get(parts.scheme) or proxies.get("all")
    return not wanted or bool(urllib.request.proxy_bypass(parts.hostname))


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def usable(self) -> bool:
        """Still open at both ends: a server that closed an idle connection left an EOF."""
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        self.writer.close()


class LeanClient:
    """POSTs to paths under `base_url`, keeping up to `max_idle` connections open between them.

    Use on one event loop only (the backend's own); `aclose` closes the idle connections.
    """

    def __init__(self, base_url: str, *, max_idle: int) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self._tls = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._tls else 80)
        default = (self._tls and self._port == 443) or (not self._tls and self._port == 80)
        authority = self._host if default else f"{self._host}:{self._port}"
        if ":" in self._host:  # an IPv6 literal is bracketed in the Host header
            authority = f"[{self._host}]" if default else f"[{self._host}]:{self._port}"
        self._prefix = parts.path.rstrip("/") + "/"
        self._host_line = f"Host: {authority}\r\n".encode("latin-1")
        self._max_idle = max(1, max_idle)
        self._idle: deque[_Connection] = deque()
        self._ssl: ssl.SSLContext | None = None

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> LeanReply:
        """POST `body` to `path` (relative to the base URL's path) and read the whole reply.

        A kept-alive connection the server closed since its last reply is dropped before
        use; a fresh connection is opened when none is idle.
        """
        head = [
            f"POST {self._prefix}{path.lstrip('/')} HTTP/1.1\r\n".encode("latin-1"),
            self._host_line,
            b"Accept: application/json\r\nAccept-Encoding: gzip, deflate\r\n",
            b"User-Agent: vlmscope\r\n",
            f"Content-Length: {len(body)}\r\n".encode("latin-1"),
            *(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers.items()),
            _CRLF,
        ]
        connection = await self._connection()
        done = False
        try:
            connection.writer.write(b"".join(head) + body)
            reply, keep = await _read_reply(connection.reader)
            done = keep
            return reply
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as err:
            raise LeanError(_describe(err)) from err
        finally:
            if done and len(self._idle) < self._max_idle:
                self._idle.append(connection)
            else:
                connection.close()

    async def aclose(self) -> None:
        while self._idle:
            self._idle.pop().close()

    async def _connection(self) -> _Connection:
        while self._idle:
            connection = self._idle.pop()  # the most recently used: least likely timed out
            if connection.usable():
                return connection
            connection.close()
        try:
            if self._tls:
                if self._ssl is None:
                    import httpx  # its trust store (certifi, SSL_CERT_FILE), as before

                    self._ssl = httpx.create_ssl_context()
                reader, writer = await asyncio.open_connection(
                    self._host, self._port, ssl=self._ssl, server_hostname=self._host
                )
            else:
                reader, writer = await asyncio.open_connection(self._host, self._port)
        except OSError as err:
            raise LeanError(f"ConnectError: {_describe(err)}") from err
        return _Connection(reader, writer)


async def _read_reply(reader: asyncio.StreamReader) -> tuple[LeanReply, bool]:
    """One reply (skipping 1xx), and whether the connection may carry another request."""
    while True:
        try:
            head = await reader.readuntil(_HEAD_END)
        except asyncio.IncompleteReadError as err:
            if not err.partial:
                raise LeanError("RemoteProtocolError: server closed the connection "
                                "without sending a reply") from err  # fmt: skip
            raise
        status_line, *lines = head[:-4].decode("latin-1").split("\r\n")
        version, _, rest = status_line.partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise LeanError(f"RemoteProtocolError: bad status line {status_line[:80]!r}")
        status = int(code)
        headers: dict[str, str] = {}
        for line in lines:
            name, colon, value = line.partition(":")
            if not colon:
                raise LeanError(f"RemoteProtocolError: bad header line {line[:80]!r}")
            key = name.strip().lower()
            value = value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        if not 100 <= status < 200:
            break
    connection_header = headers.get("connection", "").lower()
    keep = version != "HTTP/1.0" and "close" not in connection_header
    if "chunked" in headers.get("transfer-encoding", "").lower():
        content = await _read_chunked(reader)
    elif "content-length" in headers:
        length = headers["content-length"].split(",")[0].strip()
        if not length.isdigit():
            raise LeanError(f"RemoteProtocolError: bad Content-Length {length[:40]!r}")
        content = await reader.readexactly(int(length))
    elif status in (204, 304):
        content = b""
    else:  # framed by the end of the stream
        content, keep = await reader.read(), False
    return LeanReply(status, headers, _decoded(content, headers.get("content-encoding"))), keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        line = await reader.readuntil(_CRLF)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise LeanError(f"RemoteProtocolError: bad chunk size {size_text[:40]!r}") from None
        if size == 0:
            while (await reader.readuntil(_CRLF)) != _CRLF:  # trailers
                pass
            return b"".join(parts)
        chunk = await reader.readexactly(size + 2)
        parts.append(chunk[:-2])


def _decoded(content: bytes, encoding: str | None) -> bytes:
    """The body without its Content-Encoding (gzip or deflate, the ones we ask for)."""
    if not encoding or encoding.lower() == "identity" or not content:
        return content
    kind = encoding.lower().strip()
    try:
        if kind in ("gzip", "x-gzip"):
            return zlib.decompress(content, 16 + zlib.MAX_WBITS)
        if kind == "deflate":
            try:
                return zlib.decompress(content)
            except zlib.error:  # raw deflate, as some servers send it
                return zlib.decompress(content, -zlib.MAX_WBITS)
    except zlib.error as err:
        raise LeanError(f"DecodingError: {kind} body: {err}") from err
    raise LeanError(f"DecodingError: unsupported Content-Encoding {encoding!r}")


def _describe(err: BaseException) -> str:
    if isinstance(err, asyncio.IncompleteReadError):
        return (f"RemoteProtocolError: reply cut short after {len(err.partial)} bytes "
                f"of {err.expected}")  # fmt: skip
    return f"{type(err).__name__}: {err}"
