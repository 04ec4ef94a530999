"""Where the reference generation path's time goes, for `batching.py --profile`.

Three figures, each measured on the workload of the timing table: encoding (the processor,
images included, per request, on the CPU), padding (the share of a sorted batch's positions
that are padding), and per decode step the wall time against the time the device was busy
(the rest is Python and kernel launches, which no faster kernel can win back).
"""

from __future__ import annotations

import time
from argparse import Namespace
from pathlib import Path

from batching_workload import workload

from vlmscope.config import HFModelConfig
from vlmscope.messages import effective_max_new_tokens
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
