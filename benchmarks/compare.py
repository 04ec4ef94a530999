"""Speed of `vlmscope compare` on full-size MEGA-Bench results: 10 models, every pair.

Synthetic results, written once by the real result writer under a temporary folder: the 505
tasks of the packaged task metadata (440 Core, 65 Open, as in the paper), 10-22 queries each
(about 8,100 queries, the size of the full benchmark), 10 models whose query scores come from a
model strength, a task difficulty and a per-task model effect; each details row carries a
response of `--response-chars` characters (a comparison must not pay for reading them), each
summary the intervals block the track writes (the macro averages and their task lists).

Timed in the same run, same folder, same rounds and seed:
- ours: `compare_models` for all 10 models on MEGA-Bench: read every model's details, one
  two-stage bootstrap scoring every model on the same draws, all 45 pairs (the matrix);
- peer: the 45 pairs compared one at a time (`compare_models` on each pair), as a comparison
  that shares nothing between pairs would; it must give the same numbers pair by pair.
Then the whole command in a fresh interpreter (`python -m vlmscope compare DIR m0 ... m9
--track megabench`, imports and all). Printed: seconds, peer / ours.

Measured on the shared 2-core machine at a load average of about 11 (other jobs running; the
script measures both every run): 10 models x 8,224 queries, 1000 rounds, ours 3.9 s (best of 3,
reading every model's details included), peer 45.7 s (11.6x); the whole command in a fresh
interpreter 9.4 s, most of it imports (the result store's own start-up is about 5 s at that
load). Before the per-task counting of draws: 7.5 s ours at a load of about 9.

    python benchmarks/compare.py [--models 10] [--rounds 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vlmscope.leaderboard.compare.run import compare_models  # noqa: E402
from vlmscope.leaderboard.load import ResultsLocation  # noqa: E402
from vlmscope.leaderboard.result_store import ResultStore  # noqa: E402
from vlmscope.messages import Response, user_request  # noqa: E402
from vlmscope.runner.results import TrackResult, write_result  # noqa: E402
from vlmscope.tracks.base import Sample, Scored  # noqa: E402
from vlmscope.tracks.megabench.intervals import headline_intervals  # noqa: E402
from vlmscope.tracks.megabench.keywords import load_task_meta  # noqa: E402

OPEN_EVERY = 8  # 65 of the 505 tasks are Open (LLM-judged), as in the paper


def write_results(out: Path, n_models: int, response_chars: int, seed: int = 0) -> int:
    """The synthetic results folder; returns the number of queries per model."""
    rng = np.random.default_rng(seed)
    meta = load_task_meta()
    tasks = sorted(meta)
    sizes = rng.integers(10, 23, size=len(tasks))
    kinds = ["llm" if i % OPEN_EVERY == 3 else "rule" for i in range(len(tasks))]
    difficulty = rng.normal(0, 1, len(tasks))
    strength = np.linspace(-0.5, 0.5, n_models)
    text = "x" * response_chars
    for m in range(n_models):
        effect = rng.normal(0, 0.5, len(tasks))
        samples, scored, entries = [], [], []
        for t, (task, size, kind) in enumerate(zip(tasks, sizes, kinds, strict=True)):
            p = 1 / (1 + np.exp(-(strength[m] - difficulty[t] + effect[t])))
            values = (rng.random(size) < p).astype(float)
            queries = []
            for q, value in enumerate(values):
                sample_id = f"{task}/{q}"
                samples.append(
                    Sample(
                        id=sample_id,
                        request=user_request(sample_id),
                        meta={"task_name": task, "query_idx": q, "row_id": str(q), "cot": True},
                    )
                )
                scored.append(
                    Scored(
                        sample_id=sample_id,
                        scores={"query_score": float(value)},
                        extra={"eval_type": kind, "response": text},
                    )
                )
                queries.append({"scores": {"query": float(value)}})
            entries.append({"task_name": task, "eval_type": kind, "query_response": queries})
        summary = {
            "core_setting": "with_cot",
            "intervals": headline_intervals(entries, meta, rounds=200),
        }
        result = TrackResult(
            model=f"m{m}",
            track="megabench",
            samples=samples,
            responses=[Response(text=text)] * len(samples),
            request_hashes=[s.request.content_hash() for s in samples],
            scored=scored,
            summary=summary,
            config_hash="bench",
            started_at="2026-01-01T00:00:00+00:00",
            finished_at="2026-01-01T00:01:00+00:00",
        )
        write_result(out, result)
    return int(sizes.sum())


def estimates(numbers: Any) -> np.ndarray:
    """Each number's values and estimate as a row of floats (NaN where there is none)."""
    rows = []
    for n in numbers:
        e = n.estimate
        rows.append([n.a, n.b, *((e.value, e.lower, e.upper, e.p_value) if e else (None,) * 4)])
    return np.array(rows, dtype=float)


def same_numbers(ours: Any, peer: Any) -> bool:
    """The same estimates up to float summation order (BLAS sums a 10-column product in
    another order than a 2-column one)."""
    return bool(np.allclose(estimates(ours), estimates(peer), atol=1e-9, equal_nan=True))


def best_of(repeat: int, run: object) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--response-chars", type=int, default=2000)
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results"
        start = time.perf_counter()
        queries = write_results(out, args.models, args.response_chars)
        print(
            f"wrote {args.models} models x {queries} queries in {time.perf_counter() - start:.1f} s"
        )
        models = [f"m{m}" for m in range(args.models)]

        def ours() -> object:
            store = ResultStore(ResultsLocation.local(out))
            return compare_models(store, models, tracks=["megabench"], rounds=args.rounds)

        def peer() -> object:
            store = ResultStore(ResultsLocation.local(out))
            return [
                compare_models(store, [a, b], tracks=["megabench"], rounds=args.rounds)
                for a, b in combinations(models, 2)
            ]

        ours_s, report = best_of(args.repeat, ours)
        peer_s, singles = best_of(1, peer)
        track = report.tracks[0]  # type: ignore[attr-defined]
        for single in singles:  # type: ignore[attr-defined]
            pair = single.tracks[0].pairs[0]
            assert same_numbers(track.pair(pair.a, pair.b).numbers, pair.numbers), (pair.a, pair.b)
        print(
            f"matrix of {len(track.pairs)} pairs, {args.rounds} rounds: ours {ours_s:.2f} s "
            f"(best of {args.repeat}), peer (pair by pair) {peer_s:.2f} s, peer / ours {peer_s / ours_s:.1f}x"
        )
        command = [
            sys.executable,
            "-m",
            "vlmscope",
            "compare",
            str(out),
            *models,
            "--track",
            "megabench",
            "--rounds",
            str(args.rounds),
        ]
        start = time.perf_counter()
        subprocess.run(
            command, check=True, capture_output=True, cwd=Path(__file__).resolve().parent.parent
        )
        print(
            f"the command in a fresh interpreter (imports included): {time.perf_counter() - start:.2f} s"
        )


if __name__ == "__main__":
    main()
