"""aiohttp as the API backend's transport, for `api_concurrency.py --transport aiohttp` only.

The backend sends through its own lean client (`vlmscope.models.http_lean`); this adapter lets
the benchmark time the same backend through aiohttp, the mature asyncio HTTP client the lean
one would otherwise be replaced by, in the same run. It answers `post(path, content=,
headers=)` with a reply shaped like httpx's (the shape `post_completion` reads), so the
backend's retry, timeout (`asyncio.wait_for`) and parsing paths are the same for every
transport and only the HTTP work differs.

Set up as cheaply as aiohttp allows: one session on the backend's loop, a pool of
`concurrency` kept-alive connections, no cookie jar, and the environment's proxy looked up
once (`trust_env=True` looks it up, and `~/.netrc`, in a thread on every request, which
tripled aiohttp's CPU per request here).
"""

from __future__ import annotations

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from vlmscope.models.http_lean import LeanReply  # the reply shape the backend reads


class AiohttpClient:
    """POSTs under `base_url` over at most `connections` connections; use on one loop."""

    def __init__(self, base_url: str, *, connections: int) -> None:
        self._base = URL(base_url.rstrip("/") + "/")
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[str, URL] = {}
        try:
            self._proxy, self._proxy_auth = get_env_proxy_for_url(self._base)
        except LookupError:
            self._proxy, self._proxy_auth = None, None

    async def post(self, path: str, *, content: bytes, headers: dict[str, str]) -> LeanReply:
        if self._session is None:  # made on the loop that uses it
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections, limit_per_host=0),
                cookie_jar=aiohttp.DummyCookieJar(),
                headers={"User-Agent": "vlmscope", "Accept": "application/json"},
            )
        url = self._urls.get(path) or self._urls.setdefault(path, self._base.join(URL(path)))
        async with self._session.post(
            url,
            data=content,
            headers=headers,
            proxy=self._proxy,
            proxy_auth=self._proxy_auth,
        ) as response:
            return LeanReply(response.status, dict(response.headers), await response.read())

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
