"""Rate-limited mode of `api_concurrency.py`: fixed concurrencies and the adaptive backend
against a server with a capacity, which answers 429 with Retry-After beyond it."""

from __future__ import annotations

import argparse
import time
from multiprocessing.connection import Connection

from api_workload import prompts

from vlmscope.config import OpenAIModelConfig
from vlmscope.models.openai_compat import OpenAIBackend


def rate_limited_run(
    base_url: str, concurrency: int, count: int, *, adaptive: bool
) -> tuple[float, int, dict[str, int]]:
    """Answered requests per second, failures and the backend's stats: a cold start (fresh
    backend, no warm-up), default retry settings."""
    config = OpenAIModelConfig(
        backend="openai",
        name="bench",
        base_url=base_url,
        model="bench",
        concurrency=concurrency,
        adaptive_concurrency=adaptive,
    )
    with OpenAIBackend(config) as backend:
        started = time.perf_counter()
        responses = backend.generate(prompts(count, "timed"))
        elapsed = time.perf_counter() - started
        stats = backend.stats
    ok = sum(r.ok for r in responses)
    return ok / elapsed, len(responses) - ok, stats


def rate_limited(
    args: argparse.Namespace, ours: Connection, base_url: str, latency_s: float
) -> None:
    """The fixed sweep and the adaptive run, `--repeats` rounds of each in turn (so a busy
    spell of the machine hits all alike); prints each run's best round and the ratio."""
    capacity = []
    if args.server_max_in_flight:
        capacity.append(f"{args.server_max_in_flight} in flight "
                        f"(at most {args.server_max_in_flight / latency_s:.0f} req/s)")  # fmt: skip
    if args.server_per_second:
        capacity.append(f"{args.server_per_second:g} req/s (burst {args.burst:g})")
    print(f"server: {' and '.join(capacity)}, latency {args.latency_ms:g} ms "
          f"+-{100 * args.latency_jitter:g}%, 429 + Retry-After beyond; {args.requests} requests "
          f"per run, each from a cold start; best of {args.repeats} rounds")  # fmt: skip
    top = max(args.concurrency)
    runs = [(f"fixed {c}", c, False) for c in args.concurrency] + [(f"adaptive {top}", top, True)]
    results: dict[str, list[tuple[float, int, int, int, str]]] = {name: [] for name, _, _ in runs}
    ours.send("stats")
    ours.recv()
    for _ in range(args.repeats):
        for name, concurrency, adaptive in runs:
            rate, failed, stats = rate_limited_run(
                base_url, concurrency, args.requests, adaptive=adaptive
            )
            ours.send("stats")
            peak, _, refused = ours.recv()
            limits = f"{stats['concurrency_min']}/{stats['concurrency_final']}"
            results[name].append((rate, failed, refused, peak, limits))
    print(f"{'run':>12} {'ok req/s':>9} {'median':>7} {'failed':>6} {'429s':>6} "
          f"{'max in flight':>13} {'limit min/final':>15}")  # fmt: skip
    best: dict[str, float] = {}
    median: dict[str, float] = {}
    for name, _, _ in runs:
        rounds = sorted(results[name], reverse=True)
        rate, failed, refused, peak, limits = rounds[0]
        best[name], median[name] = rate, rounds[len(rounds) // 2][0]
        print(f"{name:>12} {rate:>9.1f} {median[name]:>7.1f} {failed:>6} {refused:>6} "
              f"{peak:>13} {limits:>15}")  # fmt: skip
    adaptive_name = runs[-1][0]
    fixed_best = max((n for n, _, a in runs if not a), key=best.__getitem__)
    fixed_median = max((n for n, _, a in runs if not a), key=median.__getitem__)
    print(f"adaptive / best fixed ({fixed_best}): {best[adaptive_name] / best[fixed_best]:.2f} "
          f"(best rounds; medians: {median[adaptive_name] / median[fixed_median]:.2f} vs "
          f"{fixed_median}); goal >= 0.9")  # fmt: skip
