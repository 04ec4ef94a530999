"""Measure the sandbox's per-program overhead: `python -m vlmscope.sandbox.benchmark`.

Reports, for a trivial stdin-to-stdout program: the time per program run one after another on
one worker (latency), the throughput with all workers busy, and for comparison the cost of
starting a fresh `python -I -S` per program (what a sandbox without a pre-started worker pays
before any isolation is added).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from .jobs import ProgramJob
from .pool import SandboxPool

PROGRAM = "print(int(input()) * 2)"


def _fresh_interpreter_ms(count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        subprocess.run(
            [sys.executable, "-I", "-S", "-c", PROGRAM], input=b"21\n", capture_output=True
        )
    return (time.perf_counter() - started) / count * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=500, help="programs per measurement")
    parser.add_argument("--workers", type=int, default=None, help="default: one per CPU")
    args = parser.parse_args(argv)
    job = ProgramJob(PROGRAM, "21\n")
    with SandboxPool(max_workers=args.workers) as pool:
        print(f"isolation: {pool.isolation}")
        pool.map([job] * pool.max_workers)  # start every worker before timing
        started = time.perf_counter()
        sequential = [pool.run(job) for _ in range(args.programs)]
        latency_ms = (time.perf_counter() - started) / args.programs * 1000
        started = time.perf_counter()
        concurrent = pool.map([job] * args.programs)
        throughput = args.programs / (time.perf_counter() - started)
    if any(r.stdout != "42\n" for r in sequential + concurrent):
        print("error: a sandboxed run gave a wrong answer", file=sys.stderr)
        return 1
    child_ms = statistics.median(r.wall_s for r in sequential) * 1000
    print(
        f"one worker, sequential: {latency_ms:.2f} ms/program (child fork-to-exit {child_ms:.2f} ms)"
    )
    print(f"{pool.max_workers} workers: {throughput:.0f} programs/s")
    fresh_ms = _fresh_interpreter_ms(min(args.programs, 50))
    print(f"fresh `python -I -S` per program, no isolation: {fresh_ms:.2f} ms/program")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
