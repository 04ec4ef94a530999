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

`--end-to-end` compares the same baseline (the stand-in for the official evaluator; start-up paid
before timing) with the whole command a user runs: the workload written as an official
`all_query_responses.json` plus task samples (one task per metric), then `python -m vlmscope.cli
megabench score ... --out DIR` in a fresh interpreter (start-up, imports, data loading, sandbox
start, scoring, writing the three official files), best of `--repeat` rounds each, and checks that
the written scores equal the baseline's (judged fields excepted: the files carry no judge replies).
Measured on a shared 2-core machine under load (figures vary with the load; the script measures
them every run): baseline 9.4-10.6 s; end to end 11.2 s (0.9x) before start-up was made lazy and
program_judge queries ran beside the others, 5.0-5.2 s (1.8-2.1x) after (`vlmscope megabench score
--help` alone: 1.0 s -> 0.13 s). The 8x goal is out of reach here: the command's own work is ~3.6 s
of CPU in one process (loading sympy, nltk, jieba and CMUdict and the first LaTeX parses are ~2 s of
it), and two programs of this workload hang for the official 2 s each, while the baseline is ~10 s.

    python benchmarks/megabench_scoring.py [--size 6500] [--sandboxes 8] [--processes 1]
    python benchmarks/megabench_scoring.py --end-to-end [--size 6500] [--repeat 3]
    python benchmarks/megabench_scoring.py --official MEGABENCH_DIR [--pairs 2] [--models 5]

`--official PATH` measures against the real reference instead: the official `EvaluationProcessor`
from a TIGER-AI-Lab/MEGA-Bench checkout at PATH (never copied here) and `vlmscope megabench
score`, whole processes A B A B on the golden pipeline example replicated to 6,507 responses,
scores compared query by query, and five models in one process against five official runs
(`megabench_against_official.py`); then the stand-in figure above, labelled as such.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from megabench_workload import (  # noqa: E402
    SyntheticQuery,
    make_workload,
    official_files,
    queries_in_file_order,
)

from vlmscope.metrics.megabench.caches import clear_caches  # noqa: E402
from vlmscope.metrics.megabench.preload import preload  # noqa: E402
from vlmscope.metrics.megabench.query import QueryScore, score_query  # noqa: E402
from vlmscope.sandbox import ProgramJob, SandboxPool  # noqa: E402

GOAL_SECONDS = 5.0
END_TO_END_GOAL_RATIO = 8.0
REPO = Path(__file__).resolve().parent.parent


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


SLOWEST = "slowest query"
"""Key of `run_baseline`'s seconds holding its slowest single query (a program that hangs)."""


def run_baseline(
    queries: Sequence[SyntheticQuery], sandbox_pool: Any
) -> tuple[list[QueryScore], dict[str, float]]:
    """Cold caches for every query, sandbox runs one after another (a one-worker pool). The
    seconds are per metric, plus the slowest single query under `SLOWEST`."""
    seconds: dict[str, float] = defaultdict(float)
    results = []
    for query in queries:
        result, spent = _timed(query, clear_caches, sandbox_pool)
        seconds[query.metric] += spent
        seconds[SLOWEST] = max(seconds[SLOWEST], spent)
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


BASELINE_DESCRIPTION = (
    "baseline = this script's reference path, run in this process: score_query on every response "
    "with every memo cache emptied before each one, program_judge tests one after another on a "
    "one-worker sandbox pool (as the official evaluator runs them), imports and data loading "
    "already paid (start-up, shown apart)"
)


def _same_number(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    return bool(left == right)


def _same_scores(result: QueryScore, written: dict[str, Any]) -> bool:
    fields = written["field"]
    return (
        set(result.field_scores) == set(fields)
        and all(_same_number(fields[name], score) for name, score in result.field_scores.items())
        and _same_number(written["query"], result.query_score)
    )


def end_to_end(queries: Sequence[SyntheticQuery], repeat: int) -> int:
    """Best of `repeat` rounds, each: the baseline in this process, then `vlmscope megabench score`
    on the same responses in a fresh interpreter (start-up, imports and file writing included)."""
    from vlmscope.tracks.megabench.keywords import load_task_meta

    start = time.perf_counter()
    failures = preload()
    with SandboxPool(max_workers=1) as warm_up_pool:
        for query in {query.metric: query for query in queries}.values():
            score(query, warm_up_pool)
    startup = time.perf_counter() - start
    for resource, error in failures.items():
        print(f"warning: {resource} not loaded: {error}")

    with tempfile.TemporaryDirectory(prefix="megabench-end-to-end-") as folder:
        root = Path(folder)
        responses, samples = official_files(list(queries), sorted(load_task_meta()))
        (root / "all_query_responses.json").write_text(json.dumps(responses), encoding="utf-8")
        (root / "task_samples.json").write_text(json.dumps(samples), encoding="utf-8")
        command = [
            sys.executable,
            "-m",
            "vlmscope.cli",
            "megabench",
            "score",
            str(root / "all_query_responses.json"),
            "--samples",
            str(root / "task_samples.json"),
            "--out",
            str(root / "out"),
        ]
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(
            [str(REPO), *filter(None, [environment.get("PYTHONPATH")])]
        )
        baseline_walls, end_to_end_walls, slowest = [], [], 0.0
        baseline: list[QueryScore] = []
        for _ in range(repeat):
            clear_caches()
            start = time.perf_counter()
            with SandboxPool(max_workers=1) as sequential_pool:
                baseline, spent = run_baseline(queries, sequential_pool)
            slowest = max(slowest, spent[SLOWEST])
            baseline_walls.append(time.perf_counter() - start)
            start = time.perf_counter()
            finished = subprocess.run(
                command, cwd=REPO, env=environment, capture_output=True, text=True, check=False
            )
            end_to_end_walls.append(time.perf_counter() - start)
            if finished.returncode != 0:
                print(f"`{' '.join(command)}` failed ({finished.returncode}):\n{finished.stderr}")
                return 1
        written = json.loads((root / "out" / "data_with_scores.json").read_text(encoding="utf-8"))

    file_order = queries_in_file_order(list(queries))
    written_scores = [
        query["scores"] for task in written["data"] for query in task["query_response"]
    ]
    compared = [
        (index, scores)
        for index, scores in zip(file_order, written_scores, strict=True)
        if queries[index].judge_replies is None
    ]
    differing = [
        queries[index].metric
        for index, scores in compared
        if not _same_scores(baseline[index], scores)
    ]
    best_baseline, best_end_to_end = min(baseline_walls), min(end_to_end_walls)
    ratio = best_baseline / best_end_to_end
    print(f"{len(queries)} responses in {len(responses)} tasks (one per metric), best of {repeat}")
    print(f"{BASELINE_DESCRIPTION}.")
    print(f"start-up of this process (preload and one query per metric): {startup:.2f}s")
    print(
        f"baseline   : {best_baseline:6.2f}s  (rounds: "
        + ", ".join(f"{wall:.2f}" for wall in baseline_walls)
        + ")"
    )
    print(
        f"end to end : {best_end_to_end:6.2f}s  (rounds: "
        + ", ".join(f"{wall:.2f}" for wall in end_to_end_walls)
        + "): a fresh `python -m vlmscope.cli megabench score` writing the three official files"
    )
    print(
        f"speed-up   : {ratio:.1f}x  (goal: >= {END_TO_END_GOAL_RATIO:.0f}x; "
        f"{'met' if ratio >= END_TO_END_GOAL_RATIO else 'not met'}); "
        f"{(best_baseline + startup) / best_end_to_end:.1f}x with the baseline's start-up counted"
    )
    print(
        f"bound      : no run can end before its slowest query, {slowest:.2f}s here (a program "
        f"that hangs until the official 2 s limit): at most {best_baseline / slowest:.1f}x "
        "against this baseline, even with every other query free and start-up at zero"
    )
    print(
        f"identical scores on the {len(compared)} responses without judge replies "
        f"(judged fields score 0 in the files, which carry no replies): {not differing}"
    )
    if differing:
        print(f"differing queries by metric: {dict(Counter(differing))}")
    return 0 if not differing else 1


def main(argv: list[str] | None = None) -> int:
    from checkouts import MEGABENCH, checkout  # beside this script

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6500)
    parser.add_argument("--sandboxes", type=int, default=8, help="sandbox workers (and threads)")
    parser.add_argument("--processes", type=int, default=1, help="forked rule-metric scorers")
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="time `vlmscope megabench score` in a fresh process against the baseline instead",
    )
    parser.add_argument("--repeat", type=int, default=3, help="--end-to-end: rounds (best of)")
    parser.add_argument(
        "--official",
        type=checkout("TIGER-AI-Lab/MEGA-Bench", MEGABENCH),
        metavar="DIR",
        help="a TIGER-AI-Lab/MEGA-Bench checkout",
    )
    parser.add_argument("--pairs", type=int, default=2, help="--official: A B pairs (medians)")
    parser.add_argument("--models", type=int, default=5, help="--official: models in one run")
    parser.add_argument("--replicas", type=int, default=241, help="--official: task copies")
    parser.add_argument(
        "--nltk-data", type=Path, help="--official: NLTK data (default: built from WordNet)"
    )
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args(argv)
    if args.official is not None:
        from megabench_against_official import against_official

        code = against_official(
            args.official, args.replicas, args.pairs, args.models, args.nltk_data
        )
        print("\nstand-in (our own scorer as the baseline; not the official evaluator):")
        return code | end_to_end(make_workload(args.size), 1)
    queries = make_workload(args.size)
    if args.end_to_end:
        return end_to_end(queries, args.repeat)
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
    baseline_seconds.pop(SLOWEST)
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
