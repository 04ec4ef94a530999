"""Local generation through `HFBackend`: each engine one at a time and batched, on one model.

For every engine (transformers' `generate` on padded batches, the reference; the slots engine;
the slots engine in batch-invariant mode; the slots engine attending over each slot's own
column blocks, `slots-blocks`, which pays off on CUDA only: on the CPU FlexAttention runs its
slow reference implementation; the slots engine prefilling on a worker thread while it decodes,
`slots-overlap`; and both, `slots-blocks-overlap`) it prints tokens per second one request at a time and
batched, the speed-up, how many answers batched equal one-at-a-time, and peak device memory;
then the weight-bandwidth bound of the device (every decode step reads the language model's
weights once: bandwidth / weight bytes steps per second, times the batch) and the fraction of it
reached. By default it runs every tiny random-weight family on the CPU; `--config-from` builds a
random-weight model with the sizes of a ~2B-parameter VLM (written below as a dict: nothing is
downloaded) for a GPU run. `--profile` also says where the reference's time goes (encoding,
padding, Python vs device time per decode step).

    python benchmarks/batching.py [--arch all|llava|qwen2_5_vl|...] [--n 32] [--batch-size 8]
    python benchmarks/batching.py --config-from smolvlm-2b --device cuda --dtype bfloat16 \\
        --n 64 --batch-size 32 --max-new-tokens 64 --profile
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from batching_workload import FULL_SIZE_CONFIGS, device_bandwidth, workload  # noqa: E402

from vlmscope.config import HFModelConfig  # noqa: E402
from vlmscope.messages import Request, Response  # noqa: E402
from vlmscope.models.hf import HFBackend  # noqa: E402
from vlmscope.models.hf_engine_types import Stats  # noqa: E402
from vlmscope.models.tiny import (  # noqa: E402
    TINY_ARCHS,
    build_tiny_model,
    needs_torchvision,
    torchvision_works,
)

ENGINES = {  # name -> config fields
    "generate": {"engine": "generate"},
    "slots": {"engine": "slots"},
    "slots-invariant": {"engine": "slots", "batch_invariant": True},
    "slots-blocks": {"engine": "slots", "decode_attention": "blocks"},
    "slots-overlap": {"engine": "slots", "overlap_prefill": True},
    "slots-blocks-overlap": {
        "engine": "slots",
        "decode_attention": "blocks",
        "overlap_prefill": True,
    },
}


@dataclass
class Timing:
    engine: str
    single_tokens: int
    single_s: float
    batched_tokens: int
    batched_s: float
    again_s: float  # the batched run once more: cache sized, graphs captured, as in a long run
    same: int  # answers batched == one at a time, over the requests run both ways
    compared: int
    failed: int
    peak_gib: float
    notes: list[str]
    answers: list[tuple[str, int]]  # one at a time, to compare engines
    decode: Stats | None  # the slots engine's counters over the batched run again


def build(args: argparse.Namespace, arch: str, scratch: Path) -> tuple[Path, str]:
    """The model to time: given, built tiny, or built at full size with random weights."""
    if args.model_dir is not None and (args.model_dir / "config.json").is_file():
        return args.model_dir, f"{args.config_from or arch} (built before)"
    target = args.model_dir or scratch / arch
    if args.config_from is None:
        build_tiny_model(target, arch)  # type: ignore[arg-type]
        return target, arch
    spec = FULL_SIZE_CONFIGS[args.config_from]
    device = args.device if args.device != "cpu" else None
    params = build_tiny_model(
        target, spec["arch"], text=spec["text"], vision=spec["vision"], device=device,
        dtype=args.dtype,
    )  # fmt: skip
    return target, f"{args.config_from} ({params / 1e9:.2f}B random parameters)"


def timed(backend: HFBackend, requests: list[Request]) -> tuple[list[Response], float]:
    _sync()
    start = time.perf_counter()
    responses = backend.generate(requests)
    _sync()
    return responses, time.perf_counter() - start


def bench(args: argparse.Namespace, path: Path, engine: str) -> Timing:
    config = HFModelConfig(
        backend="hf", name="bench", path=str(path), batch_size=args.batch_size, dtype=args.dtype,
        device_map=args.device, max_new_tokens=args.max_new_tokens, **ENGINES[engine],
        **({"prefill_images": args.prefill_images} if args.prefill_images else {}),
    )  # fmt: skip
    batched = HFBackend(config)
    single = batched.with_batch_size(1)
    max_side = 64 if args.config_from is None else 768
    requests = workload(args.n, max_side)
    singles = requests[: args.single_n]
    batched.generate(requests[:2])  # load + warm up kernels
    single.generate(requests[:1])
    batched.reset_engine_stats()
    single.reset_engine_stats()
    _reset_peak()
    one_by_one, single_s = timed(single, singles)
    together, batched_s = timed(batched, requests)
    walls = (batched_s, single_s)
    notes = batched.batching_notes + single.batching_notes + _engine_lines(batched, single, walls)
    batched.reset_engine_stats()
    again, again_s = timed(batched, requests)
    decode = copy.copy(batched.engine_stats)
    if args.profile and engine.startswith("slots") and engine != "slots-invariant":
        from batching_profile import profile_slots

        profile_slots(batched, requests[: args.batch_size], args.device)  # one batch's worth
    pairs = list(zip(one_by_one, together[: len(singles)], strict=True))
    return Timing(
        engine=engine,
        single_tokens=sum(r.usage.completion_tokens for r in one_by_one),
        single_s=single_s,
        batched_tokens=sum(r.usage.completion_tokens for r in together),
        batched_s=batched_s,
        again_s=again_s,
        same=sum((a.text, a.usage) == (b.text, b.usage) for a, b in pairs),
        compared=len(pairs),
        failed=sum(not r.ok for r in together + one_by_one + again),
        peak_gib=_peak_gib(),
        notes=notes + _wall_lines("batched again", decode, again_s),
        answers=[(r.text, r.usage.completion_tokens) for r in one_by_one],
        decode=decode,
    )


def weight_bound(path: Path, args: argparse.Namespace) -> tuple[float, float] | None:
    """(language-model weight GB read per decode step, device bandwidth GB/s) on a GPU."""
    if not args.device.startswith("cuda"):
        return None
    from safetensors import safe_open

    total = 0
    for file in path.glob("*.safetensors"):
        with safe_open(str(file), "pt") as weights:
            for name in weights.keys():  # noqa: SIM118 (safe_open has no __iter__)
                if "vision" in name or "visual" in name or "projector" in name:
                    continue  # read once per request at prefill, not per decode step
                tensor = weights.get_slice(name)
                total += _numel(tensor.get_shape()) * (2 if args.dtype != "float32" else 4)
    return total / 1e9, device_bandwidth(args.device) / 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--arch", choices=["all", *TINY_ARCHS], default="all")
    parser.add_argument("--n", type=int, default=32, help="requests in the batched run")
    parser.add_argument(
        "--single-n", type=int, help="requests in the one-at-a-time run (default: --n)"
    )
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated")
    parser.add_argument("--model-dir", type=Path, help="model to use, or where to build one")
    parser.add_argument("--config-from", choices=sorted(FULL_SIZE_CONFIGS))
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:0, ...")
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for torch")
    parser.add_argument(
        "--prefill-images",
        type=int,
        help="slots engine: images per prefill group (default: the model config's)",
    )
    parser.add_argument(
        "--profile", action="store_true",
        help="where the time goes: the reference's encoding, padding and steps; each slots "
        "engine's phases, CUDA runtime calls and busiest kernels over one more batched run",
    )  # fmt: skip
    parser.add_argument(
        "--allow-mismatch", action="store_true",
        help="exit 0 even if answers differ where they must not (float32, or batch-invariant)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    args.single_n = min(args.single_n or args.n, args.n)
    engines = [e for e in args.engines.split(",") if e]

    import torch

    torch.set_num_threads(args.threads)
    if args.config_from is not None or args.model_dir is not None:
        archs = [args.arch if args.arch != "all" else "llava"]
    else:
        archs = list(TINY_ARCHS) if args.arch == "all" else [args.arch]
    device = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    print(
        f"{args.n} requests batched ({args.single_n} one at a time), 0-3 images each, up to "
        f"{args.max_new_tokens} new tokens, {args.dtype} on {device}, batch size "
        f"{args.batch_size}; tok/s = completion tokens per second",
        flush=True,
    )
    good = True
    for arch in archs:
        if needs_torchvision(arch) and not torchvision_works():  # type: ignore[arg-type]
            print(f"{arch}: skipped: its processor needs torchvision, which does not import")
            continue
        with tempfile.TemporaryDirectory() as scratch:
            path, label = build(args, arch, Path(scratch))
            print(f"\n{label}", flush=True)
            if args.profile:
                from batching_profile import profile_reference

                profile_reference(path, args)
            bound = weight_bound(path, args)
            timings = [bench(args, path, engine) for engine in engines]
            good = report(timings, bound, args) and good
    return 0 if good or args.allow_mismatch else 1


def report(timings: list[Timing], bound: tuple[float, float] | None, args: Any) -> bool:
    """Print the table; False if answers differ where they must not."""
    print(
        f"{'engine':<20} {'one tok/s':>9} {'batch tok/s':>11} {'again tok/s':>11} "
        f"{'speed-up':>8} {'batched==alone':>14} {'peak GiB':>8}"
    )
    good = True
    for t in timings:
        single, batched = t.single_tokens / t.single_s, t.batched_tokens / t.batched_s
        print(
            f"{t.engine:<20} {single:>9.0f} {batched:>11.0f} {t.batched_tokens / t.again_s:>11.0f} "
            f"{batched / single:>7.2f}x {t.same:>8}/{t.compared:<5} {t.peak_gib:>8.1f}"
            + ("" if t.failed == 0 else f"  {t.failed} failed")
        )
        for note in dict.fromkeys(t.notes):
            print(f"{'':<20} note: {note}")
        must_agree = args.dtype == "float32" or t.engine == "slots-invariant"
        good = good and t.failed == 0 and (t.same == t.compared or not must_agree)
    reference = {t.engine: t.answers for t in timings}.get("generate")
    for t in timings:
        if reference is not None and t.engine != "generate":
            agree = sum(a == b for a, b in zip(t.answers, reference, strict=True))
            print(f"{t.engine} one at a time == generate one at a time: {agree}/{len(reference)}")
    if bound is not None:
        weight_gb, bandwidth = bound
        steps = bandwidth / weight_gb
        print(
            f"weight-bandwidth bound: {weight_gb:.2f} GB of language-model weights per step, "
            f"{bandwidth:.0f} GB/s measured -> {steps:.0f} steps/s: {steps:.0f} tok/s one at a "
            f"time, {steps * args.batch_size:.0f} tok/s at batch {args.batch_size}"
        )
        for t in timings:
            single, batched = t.single_tokens / t.single_s, t.batched_tokens / t.batched_s
            print(
                f"{t.engine:<20} reaches {single / steps:.1%} of the bound one at a time, "
                f"{batched / (steps * args.batch_size):.1%} batched"
            )
            if t.decode is not None and t.decode.steps:
                print(f"{t.engine:<20} {_decode_traffic(t.decode, weight_gb, bandwidth)}")
    return good


def _decode_traffic(stats: Stats, weight_gb: float, bandwidth: float) -> str:
    """What the batched decode steps read against the device's bandwidth: the weights once
    per step, and the slot cache's keys and values, all of its columns (the mask hides the
    unused ones from the result, not from the reads)."""
    cache_gb = stats.cache_bytes_read / stats.steps / 1e9
    per_step_s = stats.step_s / stats.steps
    moved = (weight_gb + cache_gb) / per_step_s
    return (
        f"decode steps (batched again): {weight_gb:.2f} GB of weights + {cache_gb:.2f} GB of "
        f"slot keys and values per step in {per_step_s * 1000:.2f} ms = {moved:.0f} GB/s, "
        f"{moved / bandwidth:.0%} of the measured bandwidth; {stats.busy_slots / stats.steps:.1f} "
        "slots busy"
    )


def _engine_lines(batched: HFBackend, single: HFBackend, walls: tuple[float, float]) -> list[str]:
    """Each slots engine's counters and the split of its wall time (see `_wall_lines`)."""
    lines = []
    for label, backend, wall in zip(
        ("batched", "one at a time"), (batched, single), walls, strict=True
    ):
        stats = backend.engine_stats
        if stats is None or stats.steps == 0:
            continue
        lines.append(
            f"{label}: {stats.prefills} prefills {stats.prefill_s:.2f} s "
            f"({stats.prefill_s / max(stats.prefills, 1) * 1000:.1f} ms each), {stats.steps} "
            f"decode steps {stats.step_s:.2f} s ({stats.step_s / stats.steps * 1000:.2f} ms "
            f"each, {stats.busy_slots / stats.steps:.1f} slots busy), {stats.shifts} shifts, "
            f"{stats.grows} cache sizes, {stats.captures} CUDA graph captures"
        )
        lines += _wall_lines(label, stats, wall)
    return lines


def _wall_lines(label: str, stats: Stats | None, wall: float) -> list[str]:
    """The wall time split: waiting for prefills (all of each prefill, unless it runs on a
    worker thread beside the decode steps) and decode steps on the device, the device idle
    waiting for inputs (image processing that was not hidden), capturing decode steps as CUDA
    graphs (once per cache size), placing prefilled requests in slots (shifts, growth,
    copies), and the rest (Python between steps, answers handed back)."""
    if stats is None or stats.steps == 0:
        return []
    other = wall - stats.prefill_wait_s - stats.step_s - stats.input_wait_s
    other -= stats.capture_s + stats.place_s
    hidden = stats.prefill_s - stats.prefill_wait_s
    overlap = f" ({hidden:.2f} s more of it beside decode steps)" if hidden > 0.005 else ""
    return [
        f"{label}: wall {wall:.2f} s = prefill {_share(stats.prefill_wait_s, wall)}{overlap}"
        " + decode "
        f"{_share(stats.step_s, wall)} + waiting for inputs {_share(stats.input_wait_s, wall)} "
        f"+ graph captures {_share(stats.capture_s, wall)} + placing in slots "
        f"{_share(stats.place_s, wall)} + other {_share(other, wall)}; image processing and "
        f"tokenising took {stats.encode_s:.2f} s of worker-thread time, "
        f"{max(stats.encode_s - stats.input_wait_s, 0.0):.2f} s of it hidden behind the device"
    ]


def _share(seconds: float, wall: float) -> str:
    return f"{seconds:.2f} s ({seconds / wall:.0%})"


def _numel(shape: list[int]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _reset_peak() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()


def _peak_gib() -> float:
    import torch

    return torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else 0.0


if __name__ == "__main__":
    sys.exit(main())
