"""MEGA-Bench at its released size: build every config, build every prompt, run the oracle.

On a full-size replica (`megabench_replica.py`: 505 tasks, 7,689 rows, the released media mix
with the 43 video tasks, tiny synthetic media) it times, each in a fresh process so that its
peak memory is its own:

1. build: the `datasets` builder over all four configs (`core`, `open`, `*_single_image`);
2. prompts: the track read and checked (every video probed), then every query's prompt built
   for the oracle (the generate phase's work: images encoded, videos decoded and sampled);
3. run: `vlmscope run` with the oracle, generate + score, every result written.

Each is printed as rows per second and peak memory. The peer is the same work on a quarter of
each task's queries, measured in the same run: a cost per row that grows with the row count
(anything O(rows^2)) shows as a ratio well above 1. A third replica with the quarter's rows and
images 8x wider shows whether peak memory follows the media's total size (media held in memory)
or stays flat (media read when needed).

    python benchmarks/megabench_fullsize.py [--scale 1.0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]  # this checkout's vlmscope, then the replica

from megabench_replica import write_replica  # noqa: E402

CONFIGS = ("core", "open", "core_single_image", "open_single_image")


def phase_build(data: Path, work: Path) -> dict[str, Any]:
    from vlmscope.datasets.megabench import build

    rows = 0
    for config in CONFIGS:
        rows += len(build(config, data, cache_dir=work / f"cache-{config}"))
    return {"rows": rows}


def phase_prompts(data: Path, work: Path) -> dict[str, Any]:
    from vlmscope.config import OracleModelConfig, TrackConfig
    from vlmscope.tracks.megabench.track import MegaBenchTrack

    started = time.perf_counter()
    track = MegaBenchTrack(TrackConfig(name="megabench", data_dir=str(data)), limit=None)
    read = time.perf_counter() - started
    samples = track.samples(OracleModelConfig(backend="oracle"))
    seconds = time.perf_counter() - started
    again = time.perf_counter()
    track.samples(OracleModelConfig(backend="oracle"))  # what the score phase rebuilds
    rebuilt = time.perf_counter() - again
    images = [p for s in samples for p in s.request.images]
    sent = sum(len(p.data) for p in images)  # made one at a time, as a backend reads them
    return {
        "rows": len(samples),
        "seconds": round(seconds, 2),
        "read_s": round(read, 2),
        "rebuild_s": round(rebuilt, 2),
        "images": len(images),
        "image_mb": round(sent / 1e6, 1),
    }


def phase_run(data: Path, work: Path) -> dict[str, Any]:
    from vlmscope.config import parse_config
    from vlmscope.runner.loop import run

    config = parse_config(
        {
            "output_dir": str(work / "results"),
            "models": [{"backend": "oracle"}],
            "tracks": [{"name": "megabench", "data_dir": str(data)}],
        }
    )
    report = run(config)
    (track,) = report.tracks
    return {"rows": track.total, "core": track.summary.get("core"), "outcomes": track.outcomes}


PHASES = {"build": phase_build, "prompts": phase_prompts, "run": phase_run}


def child(phase: str, data: Path, work: Path) -> None:
    """One phase in this process: its result, seconds and peak memory as one JSON line."""
    started = time.perf_counter()
    result = PHASES[phase](data, work)
    result.setdefault("seconds", round(time.perf_counter() - started, 2))
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(result))


def measure(phase: str, data: Path, work: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", phase, str(data), str(work)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{phase} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1].removeprefix("RESULT "))


def replica_run(
    name: str,
    folder: Path,
    *,
    scale: float,
    image_px: int,
    phases: tuple[str, ...],
    noise: bool = False,
) -> dict[str, Any]:
    started = time.perf_counter()
    shape = write_replica(folder / "data", scale=scale, image_px=image_px, noise=noise)
    print(
        f"{name}: {shape['rows']} rows, {shape['tasks']} tasks ({shape['video_tasks']} video), "
        f"{shape['media_bytes'] / 1e6:.1f} MB media, written in {time.perf_counter() - started:.1f} s"
    )
    results = {}
    for phase in phases:
        results[phase] = measure(phase, folder / "data", folder / phase)
        r = results[phase]
        print(
            f"  {phase:8s} {r['rows']:6d} rows  {r['seconds']:8.2f} s  "
            f"{r['rows'] / r['seconds']:8.1f} rows/s  peak {r['peak_mb']:7.0f} MB  "
            f"{ {k: v for k, v in r.items() if k not in ('rows', 'seconds', 'peak_mb')} }"
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--keep", type=Path, help="write the replicas here and keep them")
    parser.add_argument(
        "--child", nargs=3, metavar=("PHASE", "DATA", "WORK"), help=argparse.SUPPRESS
    )
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    if args.child:
        phase, data, work = args.child
        child(phase, Path(data), Path(work))
        return
    root = args.keep or Path(tempfile.mkdtemp(prefix="megabench-fullsize-"))
    phases = tuple(PHASES)
    full = replica_run("full", root / "full", scale=args.scale, image_px=48, phases=phases)
    peer = replica_run(
        "quarter", root / "quarter", scale=args.scale / 4, image_px=48, phases=phases
    )
    wide = replica_run(
        "quarter, 8x wider noise images",
        root / "wide",
        scale=args.scale / 4,
        image_px=384,
        phases=("prompts",),
        noise=True,
    )
    print("\ncost per row, full / quarter (about 1 when linear in the rows):")
    for phase in phases:
        per_row = {
            n: r[phase]["seconds"] / r[phase]["rows"]
            for n, r in (("full", full), ("quarter", peer))
        }
        print(f"  {phase:8s} {per_row['full'] / per_row['quarter']:.2f}")
    print(
        "peak memory of the prompt phase, quarter with 8x wider noise images / quarter: "
        f"{wide['prompts']['peak_mb'] / peer['prompts']['peak_mb']:.2f} "
        f"(images sent: {peer['prompts']['image_mb']:.1f} MB -> {wide['prompts']['image_mb']:.1f} MB)"
    )


if __name__ == "__main__":
    main()
