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

    python benchmarks/api_concurrency.py [--latency-ms 50] [--concurrency 4 8 16 32 64] [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.servers import OpenAIStub  # noqa: E402
from vlmscope.config import OpenAIModelConfig  # noqa: E402
from vlmscope.messages import Request, user_request  # noqa: E402
from vlmscope.models.openai_compat import OpenAIBackend  # noqa: E402


def requests_per_second(base_url: str, concurrency: int, count: int) -> tuple[float, float]:
    """Requests/s and client CPU ms/request for `count` requests, after a warm-up round."""
    config = OpenAIModelConfig(
        backend="openai", name="bench", base_url=base_url, model="bench", concurrency=concurrency
    )
    commits: list[int] = []
    with OpenAIBackend(config) as backend:
        backend.generate(prompts(concurrency, "warm-up"))  # opens the connections
        batch = prompts(count, "timed")
        started, cpu_started = time.perf_counter(), time.process_time()
        responses = backend.generate(batch, lambda chunk: commits.append(len(chunk)))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    failed = [r for r in responses if not r.ok]
    if failed or sum(commits) != count:
        raise SystemExit(f"{len(failed)} requests failed: {failed[0].error if failed else ''}")
    return count / elapsed, 1000.0 * cpu / count


def raw_socket_rate(base_url: str, concurrency: int, count: int) -> float:
    """Requests/s of the bare-socket peer: the same requests, nothing but asyncio streams."""
    host, port = base_url.split("//")[1].split("/")[0].split(":")
    body = b'{"model":"bench","messages":[{"role":"user","content":"peer"}],"max_tokens":8}'
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

    return asyncio.run(run())


def serve_stub(latency_s: float, connection: Connection) -> None:
    """In the server process: report the URL, then answer each "stats" with max in flight."""
    with OpenAIStub(latency_s=latency_s) as stub:
        connection.send(stub.base_url)
        while connection.recv() == "stats":
            connection.send(stub.max_in_flight)
            stub.max_in_flight = 0


def prompts(count: int, label: str) -> list[Request]:
    return [user_request(f"{label} question {i}: what colour is it?") for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    parser.add_argument("--rounds", type=int, default=30, help="requests = rounds x concurrency")
    args = parser.parse_args()
    latency_s = args.latency_ms / 1000.0

    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("fork").Process(
        target=serve_stub, args=(latency_s, theirs), daemon=True
    )
    server.start()
    base_url = ours.recv()
    try:
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; "
              f"server latency {args.latency_ms:g} ms")  # fmt: skip
        baseline, baseline_cpu = requests_per_second(base_url, 1, max(20, args.rounds))
        print(f"one at a time: {baseline:.1f} req/s (ideal {1 / latency_s:.1f}, "
              f"ratio {baseline * latency_s:.2f}, client CPU {baseline_cpu:.2f} ms/request)")  # fmt: skip
        print(f"{'C':>4} {'requests':>8} {'req/s':>8} {'ideal':>8} {'ratio':>6} {'vs one':>7} "
              f"{'peer req/s':>10} {'vs peer':>7} {'CPU ms/req':>10} {'max in flight':>13}")  # fmt: skip
        for concurrency in args.concurrency:
            ours.send("stats")
            ours.recv()  # reset the server's high-water mark
            count = args.rounds * concurrency
            rate, cpu_ms = requests_per_second(base_url, concurrency, count)
            ours.send("stats")
            max_in_flight = ours.recv()
            peer = raw_socket_rate(base_url, concurrency, count)
            ideal = concurrency / latency_s
            print(f"{concurrency:>4} {count:>8} {rate:>8.1f} {ideal:>8.1f} {rate / ideal:>6.2f} "
                  f"{rate / baseline:>6.1f}x {peer:>10.1f} {rate / peer:>7.2f} {cpu_ms:>10.2f} "
                  f"{max_in_flight:>13}")  # fmt: skip
    finally:
        ours.send("stop")
        server.join(timeout=5)


if __name__ == "__main__":
    main()
