"""Speed of MEGA-Bench query scoring: 6,500 synthetic responses over every registered metric.

Two configurations are measured in the same run on the same workload and must give identical
scores:
- baseline: every memo cache emptied before each query (no LaTeX/number reuse) and the sandboxed
  programs of `program_judge` run one after another (a one-worker `SandboxPool`);
- optimised: warm caches (parsed LaTeX, numbers read from text, lemmatised phrases, pronunciations);
  `program_judge` queries handed to threads that wait on a pool of `--sandboxes` pre-started
  sandbox workers (a fork per test; a program that hangs holds one worker for its 2 s, not the
  whole run), while the other queries are scored in this process, or, grouped by metric so each
  process keeps its caches hot, by `--processes` forked scorers.
One-time start-up (imports, WordNet/CMUdict/jieba loading, the first sympy parse, starting the
sandbox workers) is paid by `preload()` and a warm-up pass over one query per metric, and reported
separately. About 1 % of the
programs hang (they sleep) and are stopped by the official 2 s limit.

    python benchmarks/megabench_scoring.py [--size 6500] [--sandboxes 8] [--processes 1]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from megabench_workload import SyntheticQuery, make_workload  # noqa: E402

from vlmscope.metrics.megabench.caches import clear_caches  # noqa: E402
from vlmscope.metrics.megabench.preload import preload  # noqa: E402
from vlmscope.metrics.megabench.query import QueryScore, score_query  # noqa: E402
from vlmscope.sandbox import ProgramJob, SandboxPool  # noqa: E402

GOAL_SECONDS = 5.0


def score(query: SyntheticQuery, sandbox_pool: Any = None) -> QueryScore:
    return score_query(
        task_name=query.metric,
        metric_info=query.metric_info,
        eval_context=query.eval_context,
        correct_answer=query.correct_answer,
        response=query.response,
        query_text="",
        global_description="",
        judge_replies=query.judge_replies,
        sandbox_pool=sandbox_pool,
    )


def _timed(
    query: SyntheticQuery, before: Callable[[], None] | None = None, sandbox_pool: Any = None
) -> tuple[QueryScore, float]:
    if before is not None:
        before()
    start = time.perf_counter()
    result = score(query, sandbox_pool)
    return result, time.perf_counter() - start


def run_baseline(
    queries: Sequence[SyntheticQuery], sandbox_pool: Any
) -> tuple[list[QueryScore], dict[str, float]]:
    """Cold caches for every query, sandbox runs one after another (a one-worker pool)."""
    seconds: dict[str, float] = defaultdict(float)
    results = []
    for query in queries:
        result, spent = _timed(query, clear_caches, sandbox_pool)
        seconds[query.metric] += spent
        results.append(result)
    return results, seconds


_QUERIES: Sequence[SyntheticQuery] = ()


def _score_chunk(indices: list[int]) -> list[tuple[int, QueryScore, float]]:
    """Score queries of the forked parent's `_QUERIES` (inherited, not pickled)."""
    return [(index, *_timed(_QUERIES[index])) for index in indices]


def _metric_chunks(queries: Sequence[SyntheticQuery], count: int) -> list[list[int]]:
    """Indices grouped by metric, cut into `count` runs of similar length: a process keeps its own
    caches hot for the metrics it scores."""
    order = sorted(range(len(queries)), key=lambda index: queries[index].metric)
    size = -(-len(order) // count)
    return [order[start : start + size] for start in range(0, len(order), size)]


def run_optimised(
    queries: Sequence[SyntheticQuery], sandbox_pool: Any, processes: int
) -> tuple[list[QueryScore], dict[str, float]]:
    """Warm caches; rule metrics in `processes` forked scorers (1: in this process), program_judge
    queries meanwhile in a thread pool waiting on the shared sandbox pool."""
    global _QUERIES
    seconds: dict[str, float] = defaultdict(float)
    results: list[Any] = [None] * len(queries)
    programs = [index for index, query in enumerate(queries) if query.metric == "program_judge"]
    rules = [query for query in queries if query.metric != "program_judge"]
    rule_indices = [index for index, query in enumerate(queries) if query.metric != "program_judge"]
    _QUERIES = rules
    scorers = multiprocessing.get_context("fork").Pool(processes) if processes > 1 else None
    with ThreadPoolExecutor(max_workers=sandbox_pool.max_workers) as pool:
        pending: dict[int, Future[tuple[QueryScore, float]]] = {
            index: pool.submit(_timed, queries[index], None, sandbox_pool) for index in programs
        }
        chunks = _metric_chunks(rules, max(processes, 1) * 4)
        scored = scorers.map(_score_chunk, chunks) if scorers else map(_score_chunk, chunks)
        for chunk in scored:
            for local_index, result, spent in chunk:
                results[rule_indices[local_index]] = result
                seconds[rules[local_index].metric] += spent
        for index, future in pending.items():
            results[index], spent = future.result()
            seconds["program_judge"] += spent
    if scorers:
        scorers.close()
        scorers.join()
    return results, seconds


def _slowest(seconds: dict[str, float], count: int = 5) -> str:
    ranked = sorted(seconds.items(), key=lambda item: item[1], reverse=True)[:count]
    return ", ".join(f"{name} {spent:.2f}s" for name, spent in ranked)


def _signature(results: Sequence[QueryScore]) -> list[str]:
    return [repr((dict(r.field_scores), r.query_score)) for r in results]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6500)
    parser.add_argument("--sandboxes", type=int, default=8, help="sandbox workers (and threads)")
    parser.add_argument("--processes", type=int, default=1, help="forked rule-metric scorers")
    args = parser.parse_args(argv)
    queries = make_workload(args.size)
    metrics = sorted({query.metric for query in queries})

    start = time.perf_counter()
    concurrent_pool = SandboxPool(max_workers=args.sandboxes)
    concurrent_pool.map([ProgramJob("pass")] * args.sandboxes)  # start every worker now
    failures = preload()
    for query in {query.metric: query for query in queries}.values():
        score(query)
    print(f"start-up (imports and data, once per process): {time.perf_counter() - start:.2f}s")
    for resource, error in failures.items():
        print(f"warning: {resource} not loaded: {error}")

    start = time.perf_counter()
    with SandboxPool(max_workers=1) as sequential_pool:
        baseline, baseline_seconds = run_baseline(queries, sequential_pool)
    baseline_wall = time.perf_counter() - start
    clear_caches()
    start = time.perf_counter()
    with concurrent_pool:
        optimised, optimised_seconds = run_optimised(queries, concurrent_pool, args.processes)
    optimised_wall = time.perf_counter() - start

    differing = [
        query.metric
        for query, left, right in zip(
            queries, _signature(baseline), _signature(optimised), strict=True
        )
        if left != right
    ]
    identical = not differing
    print(f"{len(queries)} responses over {len(metrics)} metrics; identical scores: {identical}")
    if differing:
        print(f"differing queries by metric: {dict(Counter(differing))}")
    print(f"baseline : {baseline_wall:6.2f}s  {len(queries) / baseline_wall:8.0f} responses/s")
    print(f"optimised: {optimised_wall:6.2f}s  {len(queries) / optimised_wall:8.0f} responses/s")
    print(f"speed-up : {baseline_wall / optimised_wall:.1f}x  (goal: <= {GOAL_SECONDS:.0f}s)")
    print(
        "slowest metrics (time summed over their queries; concurrent program_judge queries overlap)"
    )
    print(f"  baseline : {_slowest(baseline_seconds)}")
    print(f"  optimised: {_slowest(optimised_seconds)}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
