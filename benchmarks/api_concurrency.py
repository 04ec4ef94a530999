"""Throughput of `OpenAIBackend` against a server with a fixed latency, vs its ideal.

With latency L and concurrency C, a client that keeps C requests in flight at all times answers
C / L requests per second; the ratio achieved / ideal (goal >= 0.9) shows what the client's own
overhead (event loop, JSON, connection pool, on_done commits) costs. A one-at-a-time run
(C = 1) on the same server is measured in the same run as the baseline, and so is a peer: C
bare asyncio sockets, each sending its requests back to back on one keep-alive connection (no
HTTP library, no JSON), which shows what this machine allows at that concurrency.

The server is the scripted stub from the tests (`tests/servers.py`) on 127.0.0.1, in a process
of its own so that its work does not count against the client's CPU. The client's CPU time per
request is printed too: when achieved < ideal, it says whether the client ran out of CPU.

    python benchmarks/api_concurrency.py [--latency-ms 50] [--concurrency 1 2 4 ... 64] [--rounds 30]

The backend talks to such a URL through its lean HTTP client (`vlmscope.models.http_lean`);
`--transport lean httpx aiohttp` times the same backend through each of them in turn at every
concurrency, in the same run (httpx is what it uses behind a proxy; aiohttp, plugged in by
`aiohttp_transport.py`, is the maintained library it would otherwise use): repeat a name for
A B A B rounds. The bare-socket peer's CPU per request is printed beside the backend's: on
loopback much of both is the kernel's (each send runs the TCP stack), which no client can avoid.

With `--images N`, every request carries N photo-sized images (`--image-side`, larger than the
default budget's 1000 px, so each is decoded, resized and base64-encoded before it is sent):
the client's encoding then competes with the server's latency. A ratio that stays near the
text-only one shows the encoding is done while other requests are at the server. The peer
then sends the same body (encoded once, beforehand), so its rate is what the server and the
machine allow for bodies of that size. Each request's images are its own (bytes that differ,
so none is found among the images already fitted) unless `--image-reuse R` sends each set of
images with R requests in a row, as a judge sends a question's image with every answer it
judges (R = 20: ten models, both orders); then only the first of the R is resized.

Rate-limited mode: the server has a capacity, `--server-max-in-flight N` requests at once or
`--server-per-second R` (a token bucket of `--burst`), or both, and answers 429 with
Retry-After beyond it; its service times vary by `--latency-jitter` (a share, default 20%).
Each fixed concurrency of the sweep is run, and the adaptive backend (its limit starts at the
sweep's largest value and follows AIMD), every run from a cold start with the default retry
settings, in `--repeats` rounds taken in turn; the goodput (answered requests per second) of
the adaptive backend's best round is compared with the best fixed one's (goal >= 0.9), and so
are the medians.

    python benchmarks/api_concurrency.py --server-max-in-flight 16 [--requests 3000]
    python benchmarks/api_concurrency.py --server-per-second 200 [--burst 10]

The stub's process and the requests are in `api_workload.py`, the rate-limited mode in
`api_rate_limited.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_rate_limited import rate_limited  # noqa: E402
from api_workload import photo_images, prompts, serve_stub  # noqa: E402

from vlmscope.config import OpenAIModelConfig  # noqa: E402
from vlmscope.models import openai_compat  # noqa: E402
from vlmscope.models.images import apply_image_budget  # noqa: E402
from vlmscope.models.openai_body import encode_body  # noqa: E402
from vlmscope.models.openai_compat import OpenAIBackend  # noqa: E402
from vlmscope.models.openai_request import request_body  # noqa: E402


def requests_per_second(
    base_url: str,
    concurrency: int,
    count: int,
    images: tuple[bytes, ...] = (),
    *,
    transport: str = "lean",
    reuse: int = 1,
) -> tuple[float, float]:
    """Requests/s and client CPU ms/request for `count` requests, after a warm-up round,
    with the backend sending through `transport`: its lean client, httpx or aiohttp."""
    lean = openai_compat.lean_client_for
    if transport == "httpx":
        openai_compat.lean_client_for = lambda url: False  # type: ignore[assignment]
    try:
        return _requests_per_second(base_url, concurrency, count, images, transport, reuse)
    finally:
        openai_compat.lean_client_for = lean  # type: ignore[assignment]


def _requests_per_second(
    base_url: str,
    concurrency: int,
    count: int,
    images: tuple[bytes, ...],
    transport: str,
    reuse: int,
) -> tuple[float, float]:
    config = OpenAIModelConfig(
        backend="openai", name="bench", base_url=base_url, model="bench", concurrency=concurrency
    )
    commits: list[int] = []
    with OpenAIBackend(config) as backend:
        if transport == "aiohttp":  # aiohttp comes with `datasets` (fsspec's http)
            from aiohttp_transport import AiohttpClient

            backend._client = AiohttpClient(base_url, connections=concurrency)  # type: ignore[assignment]
        # opens the connections, and runs each code path often enough for the interpreter to
        # specialise it, as the thousands of requests of a real run do (after a warm-up of one
        # request, the first timed run at C = 1 was up to 0.1 ms a request dearer than later ones)
        backend.generate(prompts(max(concurrency, _WARM_UP), "warm-up", images))
        batch = prompts(count, f"timed-{concurrency}", images, reuse)
        started, cpu_started = time.perf_counter(), time.process_time()
        responses = backend.generate(batch, lambda chunk: commits.append(len(chunk)))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    failed = [r for r in responses if not r.ok]
    if failed or sum(commits) != count:
        raise SystemExit(f"{len(failed)} requests failed: {failed[0].error if failed else ''}")
    return count / elapsed, 1000.0 * cpu / count


_WARM_UP = 16  # fewest warm-up requests


def raw_socket_rate(
    base_url: str, concurrency: int, count: int, images: tuple[bytes, ...] = ()
) -> tuple[float, float]:
    """Requests/s and CPU ms/request of the bare-socket peer: the same requests, nothing but
    asyncio streams; with images, the body the backend sends, encoded once beforehand (so the
    server's work on large bodies is in the peer's figure too)."""
    host, port = base_url.split("//")[1].split("/")[0].split(":")
    body = b'{"model":"bench","messages":[{"role":"user","content":"peer"}],"max_tokens":8}'
    if images:
        config = OpenAIModelConfig(backend="openai", name="peer", base_url=base_url, model="bench")
        budgeted, _ = apply_image_budget(prompts(1, "peer", images)[0], config.image_budget)
        body = encode_body(request_body(budgeted, config))
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (host.encode(), len(body), body)
    )

    async def connection(rounds: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        for _ in range(rounds):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1]) for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )  # fmt: skip
            await reader.readexactly(length)
        writer.close()

    async def run() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(connection(count // concurrency) for _ in range(concurrency)))
        return concurrency * (count // concurrency) / (time.perf_counter() - started)

    cpu_started = time.process_time()
    rate = asyncio.run(run())
    return rate, 1000.0 * (time.process_time() - cpu_started) / (count // concurrency * concurrency)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64])
    parser.add_argument(
        "--rounds",
        type=int,
        default=30,
        help="requests = rounds x concurrency, and at least --min-requests",
    )
    parser.add_argument(
        "--min-requests",
        type=int,
        default=100,
        help="fewest requests a run (a 1.5 s run at C = 1 gave CPU figures 20%% apart)",
    )
    parser.add_argument("--images", type=int, default=0, help="images per request")
    parser.add_argument("--image-side", type=int, default=1600, help="their width in pixels")
    parser.add_argument(
        "--image-reuse",
        type=int,
        default=1,
        metavar="R",
        help="send each set of images with R requests in a row (a judge: 20); default 1",
    )
    parser.add_argument(
        "--transport",
        nargs="+",
        choices=("lean", "httpx", "aiohttp"),
        default=["lean"],
        help="time the backend through each of these, in turn at each concurrency",
    )
    limited = parser.add_argument_group("rate-limited mode")
    limited.add_argument("--server-max-in-flight", type=int, metavar="N")
    limited.add_argument("--server-per-second", type=float, metavar="R")
    limited.add_argument("--burst", type=float, default=1.0, help="token bucket size")
    limited.add_argument("--requests", type=int, default=3000, help="requests per run")
    limited.add_argument(
        "--latency-jitter", type=float, default=0.2, help="service time varies by this share"
    )
    limited.add_argument("--repeats", type=int, default=3, help="rounds of every run")
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    latency_s = args.latency_ms / 1000.0
    limits: dict[str, Any] = {}
    if args.server_max_in_flight:
        limits["max_in_flight"] = args.server_max_in_flight
    if args.server_per_second:
        limits.update(per_second=args.server_per_second, burst=args.burst)
    if limits:
        limits["jitter"] = args.latency_jitter
        logging.disable(logging.WARNING)  # failures are counted in the table

    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("fork").Process(
        target=serve_stub, args=(latency_s, theirs, limits), daemon=True
    )
    server.start()
    base_url = ours.recv()
    if limits:
        try:
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
            rate_limited(args, ours, base_url, latency_s)
        finally:
            ours.send("stop")
            server.join(timeout=5)
        return
    try:
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; "
              f"server latency {args.latency_ms:g} ms")  # fmt: skip
        images = photo_images(args.images, args.image_side)
        if images:
            print(f"{len(images)} image(s) of {args.image_side} px a request, each set sent "
                  f"with {args.image_reuse} request(s) in a row")  # fmt: skip
        baseline, baseline_cpu = requests_per_second(
            base_url, 1, max(args.min_requests, args.rounds), images, transport=args.transport[0],
            reuse=args.image_reuse,
        )  # fmt: skip
        print(f"one at a time ({args.transport[0]}): {baseline:.1f} req/s (ideal "
              f"{1 / latency_s:.1f}, ratio {baseline * latency_s:.2f}, client CPU "
              f"{baseline_cpu:.2f} ms/request)")  # fmt: skip
        print(f"{'C':>4} {'transport':>9} {'requests':>8} {'req/s':>8} {'ideal':>8} {'ratio':>6} "
              f"{'vs one':>7} {'peer req/s':>10} {'vs peer':>7} {'CPU ms/req':>10} "
              f"{'peer CPU':>8} {'max in flight':>13}")  # fmt: skip
        worst: dict[str, tuple[tuple[float, int], tuple[float, int]]] = {}
        for concurrency in args.concurrency:
            count = max(args.rounds * concurrency, args.min_requests)
            ideal = concurrency / latency_s
            peer, peer_cpu = raw_socket_rate(base_url, concurrency, count, images)
            for transport in args.transport:
                ours.send("stats")
                ours.recv()  # reset the server's high-water mark
                rate, cpu_ms = requests_per_second(
                    base_url, concurrency, count, images, transport=transport,
                    reuse=args.image_reuse,
                )  # fmt: skip
                ours.send("stats")
                max_in_flight = ours.recv()
                print(f"{concurrency:>4} {transport:>9} {count:>8} {rate:>8.1f} {ideal:>8.1f} "
                      f"{rate / ideal:>6.2f} {rate / baseline:>6.1f}x {peer:>10.1f} "
                      f"{rate / peer:>7.2f} {cpu_ms:>10.2f} {peer_cpu:>8.2f} "
                      f"{max_in_flight:>13}")  # fmt: skip
                ratio, cpu = worst.get(transport, ((math.inf, 0), (0.0, 0)))
                worst[transport] = (
                    min(ratio, (rate / ideal, concurrency)),
                    max(cpu, (cpu_ms, concurrency)),
                )
        for transport, ((ratio, at), (cpu, cpu_at)) in worst.items():
            print(f"{transport}: lowest ratio to ideal {ratio:.2f} (C={at}, goal >= 0.9); "
                  f"most client CPU {cpu:.2f} ms/request (C={cpu_at}, goal < 0.5)")  # fmt: skip
    finally:
        ours.send("stop")
        server.join(timeout=5)


if __name__ == "__main__":
    main()
