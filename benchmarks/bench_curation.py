"""Bench curation after embedding (duplicates, UMAP, HDBSCAN, sampling) on synthetic prompts,
and the tiny CLIP's embedding throughput on the CPU.

Part 1. Synthetic prompts stand for a chat log already embedded: 50 planted topics, each with
its own vocabulary of 200 made-up words (texts of 8 to 14 of them) and a centre on the unit sphere in 512
dimensions (CLIP ViT-B/32's), each prompt its topic's centre plus noise, scaled to unit
length; an image hash per prompt; 1% of the prompts are planted exact copies and 1% near
copies (re-spaced, upper-cased text and a hash two bits away). Each size runs in a fresh
process, stage by stage, the way `curate` runs them: `find_duplicates` on fingerprints, then UMAP
and HDBSCAN (`bench_clusters.reduce` and `cluster_reduced`, the two halves of `cluster`, with
BERTopic's defaults, seeded), then `sample_uniform` (500 prompts). Printed per stage: seconds and the process's peak resident
memory so far; then the adjusted Rand index of the clusters against the planted topics and
how many planted copies were found. UMAP's code is compiled by numba on first use (minutes
on a busy machine); runs on 500 and 5,000 random points do it before the clock starts. The peer, measured in the same run, is
the same pipeline at a tenth of the size: the ratios show how each stage grows with the data.

Part 2. The tiny random CLIP (`vlmscope.models.tiny_clip`) embeds synthetic prompts (a 64 px
drawing and a 12-word text each) in batches of 32 on the CPU; printed: prompts per second for
text and image together, and text alone as its peer. A real CLIP's throughput needs a GPU
(`--model NAME` runs any CLIP-family checkpoint the same way).

Measured on a shared 2-core machine at a load average of 4 to 7 (other jobs running), one
thread (OMP_NUM_THREADS=1): 200,000 prompts: duplicates 98 s, UMAP 452 s, HDBSCAN 20.5 s,
sampling under 0.1 s, 571 s in all, peak RSS 3.4 GB (391 MB of embeddings); 50 clusters,
adjusted Rand index 1.000, 4,000 of 4,000 planted copies found, no other row taken. The peer at
20,000: 4.8 s, 23.4 s, 0.7 s, 29 s in all, peak RSS 0.86 GB, so 10x the data cost about 20x the
time in each of the three stages and 4x the memory. Keep both sizes at 10,000 or more: below
that UMAP optimises for 500 epochs instead of 200, so 2,000 prompts take about as long as 20,000. Tiny CLIP: 1,023 prompts/s text and image,
2,140 text only (512 prompts, batch 32).

    python benchmarks/bench_curation.py [--sizes 20000 200000] [--prompts 512] [--model DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TOPICS = 50
DIMENSIONS = 512
NOISE = 0.9
"""Per-dimension noise relative to a centre's: clusters overlap at their edges, as real ones do."""
BENCH_SIZE = 500


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def synthetic(n: int, seed: int = 0) -> tuple[np.ndarray, list[Any], np.ndarray, dict[int, int]]:
    """(embeddings, fingerprints, planted topics, planted copy -> original)."""
    from vlmscope.tracks.visionarena.bench_duplicates import Fingerprint

    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(TOPICS, DIMENSIONS)).astype(np.float32)
    topics = rng.integers(0, TOPICS, size=n)
    vectors = centres[topics] + NOISE * rng.normal(size=(n, DIMENSIONS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = [
        ["".join(rng.choice(letters, size=int(rng.integers(3, 10)))) for _ in range(200)]
        for _ in range(TOPICS)
    ]
    prints: list[Any] = []
    for i in range(n):
        words = rng.choice(vocab[topics[i]], size=int(rng.integers(8, 15)))
        text = " ".join(words)
        prints.append(Fingerprint(text, (f"{i:064x}",), (int(rng.integers(0, 2**63)),)))
    copies: dict[int, int] = {}
    for i in rng.choice(n // 2, size=n // 50, replace=False).tolist():
        copy = n - 1 - i  # copies are read after their originals
        original = prints[i]
        if len(copies) % 2 == 0:
            prints[copy] = original
        else:
            nudged = original.image_hashes[0] ^ 0b101
            prints[copy] = type(original)(
                " " + original.text.upper() + "  ", (f"{copy:064x}",), (nudged,)
            )
        vectors[copy], topics[copy] = vectors[i], topics[i]
        copies[copy] = i
    return vectors, prints, topics, copies


def run_size(n: int) -> dict[str, Any]:
    """The stages on `n` synthetic prompts, in this process (called in a fresh one)."""
    from sklearn.metrics import adjusted_rand_score

    from vlmscope.tracks.visionarena.bench_clusters import (
        ClusterParams,
        cluster,
        cluster_reduced,
        reduce,
    )
    from vlmscope.tracks.visionarena.bench_duplicates import DuplicateRules, find_duplicates
    from vlmscope.tracks.visionarena.bench_sampling import sample_uniform

    params = ClusterParams()
    # numba compiles UMAP's code here, before the clock starts: above 4,096 points UMAP finds
    # neighbours with NN-descent (other code than the exact search below it), so both sizes
    for warm_size in (500, 5000):
        warm = np.random.default_rng(1).normal(size=(warm_size, 16)).astype(np.float32)
        cluster(warm, params)
    vectors, prints, topics, copies = synthetic(n)
    out: dict[str, Any] = {"n": n, "input_mb": vectors.nbytes / 2**20, "stages": []}

    def stage(name: str, fn: Any) -> Any:
        start = time.perf_counter()
        result = fn()
        out["stages"].append(
            {"stage": name, "seconds": time.perf_counter() - start, "peak_mb": peak_mb()}
        )
        return result

    found = stage("duplicates (MinHash LSH)", lambda: find_duplicates(prints, DuplicateRules()))
    kept = [i for i, d in enumerate(found) if d is None]
    reduced, _ = stage("UMAP (to 5 dimensions)", lambda: reduce(vectors[kept], params, 5))
    labels_array, _, _ = stage("HDBSCAN", lambda: cluster_reduced(reduced, params))
    labels = labels_array.tolist()
    stage("uniform sample", lambda: sample_uniform(labels, BENCH_SIZE, seed=0))
    out["ari"] = adjusted_rand_score(topics[kept], labels_array)
    out["clusters"] = len({x for x in labels if x >= 0})
    out["outliers"] = labels.count(-1)
    out["copies_found"] = sum(found[c] is not None and found[c].of == i for c, i in copies.items())
    out["copies"] = len(copies)
    out["false_duplicates"] = sum(d is not None for d in found) - out["copies_found"]
    return out


def timed_sizes(sizes: list[int]) -> list[dict[str, Any]]:
    results = []
    for n in sizes:
        code = (
            "import json, sys; sys.path.insert(0, 'benchmarks'); import bench_curation as b; "
            f"print(json.dumps(b.run_size({n})))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=Path(__file__).resolve().parent.parent,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:  # the size's own traceback, not only its exit status
            sys.exit(f"{n:,} prompts: the run failed (status {done.returncode}):\n{done.stderr}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        report_size(results[-1])
    return results


def report_size(r: dict[str, Any]) -> None:
    print(f"\n{r['n']:,} prompts ({r['input_mb']:.0f} MB of float32 embeddings)")
    total = 0.0
    for s in r["stages"]:
        total += s["seconds"]
        print(f"  {s['stage']:<26} {s['seconds']:9.1f} s   peak RSS {s['peak_mb']:8.0f} MB")
    print(f"  {'total':<26} {total:9.1f} s")
    print(
        f"  {r['clusters']} clusters, {r['outliers']:,} outliers, adjusted Rand index "
        f"{r['ari']:.3f}; planted copies found {r['copies_found']}/{r['copies']}, "
        f"other rows taken for copies {r['false_duplicates']}"
    )


def report_ratios(results: list[dict[str, Any]]) -> None:
    if len(results) < 2:
        return
    small, large = results[0], results[-1]
    print(f"\n{large['n']:,} vs {small['n']:,} prompts ({large['n'] / small['n']:.0f}x the data):")
    for a, b in zip(small["stages"], large["stages"], strict=True):
        ratio = b["seconds"] / a["seconds"] if a["seconds"] else float("inf")
        print(f"  {a['stage']:<26} time x{ratio:6.1f}")
    print(
        f"  {'peak RSS':<26} x{large['stages'][-1]['peak_mb'] / small['stages'][-1]['peak_mb']:6.1f}"
    )


def embedding_throughput(model: str | None, prompts: int) -> None:
    import torch
    from PIL import Image, ImageDraw

    from vlmscope.models.clip_embedder import ClipEmbedder
    from vlmscope.models.tiny_clip import ensure_tiny_clip

    folder = model or str(ensure_tiny_clip(Path(tempfile.mkdtemp()) / "tiny-clip"))
    rng = np.random.default_rng(0)
    texts, images = [], []
    for k in range(prompts):
        picture = Image.new("RGB", (64, 64), tuple(int(c) for c in rng.integers(0, 255, 3)))
        ImageDraw.Draw(picture).rectangle((8, 8, 40, 30), fill=(255, 255, 255))
        buffer = io.BytesIO()
        picture.save(buffer, "PNG")
        images.append([buffer.getvalue()])
        texts.append(" ".join(f"word{int(w)}" for w in rng.integers(0, 500, 12)) + f" {k}")
    embedder = ClipEmbedder(folder, batch_size=32, progress=False)
    embedder.embed(texts[:32], images[:32])  # warm up
    rates = {}
    for name, pictures in (("text + image", images), ("text only (peer)", [[]] * prompts)):
        start = time.perf_counter()
        embedder.embed(texts, pictures)
        rates[name] = prompts / (time.perf_counter() - start)
    print(f"\nembedding throughput, {folder if model else 'tiny random CLIP'}, batch 32, "
          f"torch threads {torch.get_num_threads()}:")  # fmt: skip
    for name, rate in rates.items():
        print(f"  {name:<18} {rate:9.1f} prompts/s")
    print(f"  image share of the time: {1 - rates['text + image'] / rates['text only (peer)']:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--prompts", type=int, default=512, help="prompts to embed (part 2)")
    parser.add_argument("--model", help="a CLIP-family checkpoint (default: the tiny CLIP)")
    parser.add_argument("--skip-clustering", action="store_true", help="only part 2")
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start")
    if not args.skip_clustering:
        report_ratios(timed_sizes(sorted(args.sizes)))
    embedding_throughput(args.model, args.prompts)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end (another job's load slows both)")


if __name__ == "__main__":
    main()
