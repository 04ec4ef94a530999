"""An httpx transport that keeps many concurrent requests cheap: the pool split into shards.

httpcore's connection pool re-examines every connection for every request it places (quadratic
in the number of connections, each check asking the socket through anyio). At 32 connections and
more that costs several milliseconds of CPU per request and caps a client at a few hundred
requests per second (encode/httpx#3215). Several small pools, each request going to the one with
the fewest requests in flight, keep those scans short; the client and everything above the
transport are unchanged.

Non-streaming only: the body is read inside the transport, so a shard's count drops when its
connection is free again.
"""

from __future__ import annotations

import httpx


class ShardedTransport(httpx.AsyncBaseTransport):
    def __init__(self, max_connections: int, *, shard_size: int = 4) -> None:
        shard_count = max(1, -(-max_connections // shard_size))
        per_shard = -(-max_connections // shard_count)
        limits = httpx.Limits(max_connections=per_shard, max_keepalive_connections=per_shard)
        tls = httpx.create_ssl_context()  # one for all shards: each costs ~25 ms to build
        self._shards = [
            httpx.AsyncHTTPTransport(limits=limits, verify=tls) for _ in range(shard_count)
        ]
        self._in_flight = [0] * shard_count

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index = min(range(len(self._shards)), key=self._in_flight.__getitem__)
        self._in_flight[index] += 1
        try:
            response = await self._shards[index].handle_async_request(request)
            try:
                await response.aread()
            except BaseException:
                await response.aclose()
                raise
            return response
        finally:
            self._in_flight[index] -= 1

    async def aclose(self) -> None:
        for shard in self._shards:
            await shard.aclose()
