"""Where generation's time goes, for `batching.py --profile`.

The reference path: three figures, each measured on the workload of the timing table: encoding
(the processor, images included, per request, on the CPU), padding (the share of a sorted
batch's positions that are padding), and per decode step the wall time against the time the
device was busy (the rest is Python and kernel launches, which no faster kernel can win back).

The slots engine: one more batched run under the profiler, its phases marked (prefill, decode
step, placing in slots, graph capture), each with its host and device time; the CUDA runtime
calls that stall the host (allocation, synchronisation, graph instantiation); and the kernels
that kept the device busiest.
"""

from __future__ import annotations

import contextlib
import time
from argparse import Namespace
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from batching_workload import workload

from vlmscope.config import HFModelConfig
from vlmscope.messages import Request, effective_max_new_tokens
from vlmscope.models import hf_decode, hf_prefillers
from vlmscope.models.hf import HFBackend
from vlmscope.models.hf_inputs import Prepared
from vlmscope.models.hf_reference import generate_tokens

_STEPS = 16


def profile_reference(path: Path, args: Namespace) -> None:
    import torch

    config = HFModelConfig(
        backend="hf", name="profile", path=str(path), batch_size=args.batch_size,
        dtype=args.dtype, device_map=args.device, engine="generate",
    )  # fmt: skip
    loaded = HFBackend(config)._load()
    requests = workload(args.n, 64 if args.config_from is None else 768, max_new_tokens=_STEPS)
    start = time.perf_counter()
    prepared = [loaded.encoder.prepare(r, effective_max_new_tokens(_STEPS, None)) for r in requests]
    encoding = (time.perf_counter() - start) / len(requests)
    items = sorted((p for p in prepared if isinstance(p, Prepared)), key=lambda p: p.prompt_tokens)
    batches = [items[i : i + args.batch_size] for i in range(0, len(items), args.batch_size)]
    positions = sum(len(b) * max(p.prompt_tokens for p in b) for b in batches)
    padding = 1 - sum(p.prompt_tokens for p in items) / positions
    print(
        f"reference profile: encoding {encoding * 1000:.0f} ms per request on the CPU "
        f"({sum(len(p.images) for p in items)} images in {len(items)} requests); "
        f"padding {padding:.0%} of the positions of length-sorted batches of {args.batch_size}"
    )
    batch = batches[len(batches) // 2]
    generate_tokens(loaded, batch)  # warm-up
    activities = [torch.profiler.ProfilerActivity.CPU]
    if args.device.startswith("cuda"):
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as profiler:
        _, seconds = generate_tokens(loaded, batch)
    busy = sum(getattr(e, "self_device_time_total", 0) for e in profiler.key_averages()) / 1e6
    print(
        f"reference profile: one batch of {len(batch)}, {_STEPS} new tokens: {seconds:.2f} s wall, "
        f"device busy {busy:.2f} s ({busy / seconds:.0%}); "
        f"{seconds / _STEPS * 1000:.1f} ms per step including prefill"
    )
    top = sorted(profiler.key_averages(), key=lambda e: -e.self_cpu_time_total)[:5]
    print(
        "reference profile: most host time in "
        + ", ".join(f"{e.key} {e.self_cpu_time_total / 1e3:.0f} ms" for e in top)
    )


_PHASES = {  # (where, what) -> the phase it is shown as
    # with overlap_prefill the prefills run on their own thread, which the host view of the
    # profile does not follow: their kernels still show among the busiest
    (hf_prefillers, "prefill"): "prefill",
    (hf_decode.DecodeEngine, "_decode_step"): "decode step",
    (hf_decode.DecodeEngine, "_place_in_slot"): "placing in slots",
    (hf_decode.DecodeEngine, "_capture"): "graph capture",
}
_RUNTIME_CALLS = ("cudaMalloc", "cudaFree", "cudaStreamSynchronize", "cudaDeviceSynchronize",
                  "cudaMemcpyAsync", "cudaGraphInstantiate", "cudaGraphLaunch",
                  "cudaLaunchKernel")  # fmt: skip


def profile_slots(backend: HFBackend, requests: list[Request], device: str) -> None:
    """Profile one batched run of `backend` (slots engine, warmed up) on `requests`."""
    import torch

    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.startswith("cuda"):
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    started = time.perf_counter()
    with _phases_marked(), torch.profiler.profile(activities=activities) as profiler:
        backend.generate(requests)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    wall = time.perf_counter() - started
    events = {e.key: e for e in profiler.key_averages()}
    busy = sum(getattr(e, "self_device_time_total", 0) for e in events.values()) / 1e6
    print(f"slots profile: batched run {wall:.2f} s wall (profiled), device busy {busy:.2f} s")
    phases = [
        f"{name} {e.count}x host {e.cpu_time_total / 1e3:.0f} ms device "
        f"{getattr(e, 'device_time_total', 0) / 1e3:.0f} ms"
        for name in _PHASES.values()
        if (e := events.get(name)) is not None
    ]
    print("slots profile: phases: " + "; ".join(phases))
    calls = [
        f"{name} {e.count}x {e.self_cpu_time_total / 1e3:.0f} ms"
        for name in _RUNTIME_CALLS
        if (e := events.get(name)) is not None
    ]
    print("slots profile: CUDA runtime on the host: " + ("; ".join(calls) or "none (no CUDA)"))
    kernels = sorted(
        (e for e in events.values() if getattr(e, "self_device_time_total", 0) > 0),
        key=lambda e: -e.self_device_time_total,
    )[:6]
    if kernels:
        print(
            "slots profile: busiest kernels: "
            + "; ".join(f"{e.key[:60]} {e.self_device_time_total / 1e3:.0f} ms" for e in kernels)
        )


@contextlib.contextmanager
def _phases_marked() -> Iterator[None]:
    """The engine's phase functions wrapped in profiler ranges named after the phase."""
    import torch

    def marked(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with torch.profiler.record_function(name):
                return method(*args, **kwargs)

        return wrapper

    originals = {place: getattr(*place) for place in _PHASES}
    try:
        for (owner, attribute), name in _PHASES.items():
            setattr(owner, attribute, marked(name, originals[owner, attribute]))
        yield
    finally:
        for (owner, attribute), function in originals.items():
            setattr(owner, attribute, function)
