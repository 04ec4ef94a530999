"""Tokens per second of the `hf` backend (one at a time, batched) and the `vllm` backend, on the
same requests and the same random-weight ~2B model, and how far their greedy answers agree.

Each model is built with random weights at the sizes of a ~2B-parameter VLM (the layouts are
written below as dicts: nothing is downloaded) with the tiny models' tokenizer and processor
(`vlmscope.models.tiny`), saved in bfloat16, then:

1. `hf`, one request at a time (batch size 1), then batched (`--batch-size`);
2. the GPU memory is given back, and `vllm` answers the same requests in one call.

Tokens per second count the completion tokens each produced (every backend stops at the
end-of-turn token or at `--max-new-tokens`). The answers are compared: hf batched vs hf one at
a time must be identical (greedy, left padding); vLLM's kernels differ from transformers', and
in bfloat16 a random-weight model's near-ties let answers part after a few tokens, so the
agreement is reported (identical answers, and the mean share of the shorter answer that is a
common prefix), not required.

Needs a CUDA GPU and vLLM (`pip install 'vlmscope[vllm]'`); without them it says so and exits
with status 2, measuring nothing.

    python benchmarks/vllm_throughput.py [--model qwen2_5_vl-2b smolvlm-2b] [--n 64]
        [--batch-size 16] [--max-new-tokens 64] [--gpu-memory-utilization 0.6]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from batching_workload import workload  # noqa: E402

from vlmscope.config import HFModelConfig, ImageBudget, VLLMModelConfig  # noqa: E402
from vlmscope.messages import Request, Response  # noqa: E402

# Random-weight layouts of ~2B-parameter VLMs (the vocabulary is the tiny tokenizer's).
MODELS: dict[str, dict[str, Any]] = {
    # Qwen2.5-VL: the 1.5B Qwen2 language model and Qwen2.5-VL's 32-layer vision tower
    # (patch 14, 2x2 merge: 28 px per image token, at most 256 tokens per image here)
    "qwen2_5_vl-2b": {
        "arch": "qwen2_5_vl",
        "text": {"hidden_size": 1536, "intermediate_size": 8960, "num_hidden_layers": 28,
                 "num_attention_heads": 12, "num_key_value_heads": 2,
                 "max_position_embeddings": 32768},
        "vision": {"hidden_size": 1280, "intermediate_size": 3420, "num_hidden_layers": 32,
                   "num_attention_heads": 16, "patch_size": 14, "max_tokens": 256},
    },
    # SmolVLM-Instruct: SmolLM2-1.7B (Llama) and SigLIP so400m at 384 px, pixel shuffle 3
    "smolvlm-2b": {
        "arch": "smolvlm",
        "text": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24,
                 "num_attention_heads": 32, "num_key_value_heads": 32,
                 "max_position_embeddings": 16384, "rope_theta": 273768.0},
        "vision": {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27,
                   "num_attention_heads": 16, "image_size": 384, "patch_size": 14},
    },
}  # fmt: skip


def unavailable() -> str | None:
    """Why this machine cannot run the benchmark, or None."""
    try:
        import torch
    except ImportError as err:
        return f"torch does not import ({err})"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible to torch"
    try:
        import vllm  # noqa: F401
    except ImportError as err:
        return f"vLLM is not installed ({err}); install it with: pip install 'vlmscope[vllm]'"
    return None


@dataclass
class Run:
    label: str
    responses: list[Response]
    seconds: float

    @property
    def tokens(self) -> int:
        return sum(r.usage.completion_tokens for r in self.responses)

    @property
    def failed(self) -> int:
        return sum(not r.ok for r in self.responses)


def timed(label: str, backend: Any, requests: list[Request]) -> Run:
    start = time.perf_counter()
    responses = backend.generate(requests)
    return Run(label, responses, time.perf_counter() - start)


def agreement(a: list[Response], b: list[Response]) -> tuple[int, float]:
    """Identical answers, and the mean share of the shorter answer that both begin with."""
    same = 0
    shares = []
    for x, y in zip(a, b, strict=True):
        same += x.text == y.text
        shorter = min(len(x.text), len(y.text))
        common = len(os.path.commonprefix([x.text, y.text]))
        shares.append(common / shorter if shorter else float(x.text == y.text))
    return same, float(np.mean(shares)) if shares else 1.0


def build(name: str, target: Path) -> str:
    from vlmscope.models.tiny import build_tiny_model

    spec = MODELS[name]
    params = build_tiny_model(
        target, spec["arch"], text=spec["text"], vision=spec["vision"], device="cuda",
        dtype="bfloat16",
    )  # fmt: skip
    return f"{name} layout, {params / 1e9:.2f}B random parameters"


def hf_runs(path: Path, requests: list[Request], args: argparse.Namespace) -> list[Run]:
    import torch

    from vlmscope.models.hf import HFBackend

    config = HFModelConfig(
        backend="hf", name="hf", path=str(path), batch_size=args.batch_size, dtype="bfloat16",
        device_map="cuda", max_new_tokens=args.max_new_tokens,
    )  # fmt: skip
    batched = HFBackend(config)
    single = batched.with_batch_size(1)
    batched.generate(requests[:2])  # load, warm up the kernels
    runs = [timed("hf one at a time", single, requests)]
    runs.append(timed(f"hf batch {args.batch_size}", batched, requests))
    del batched, single
    gc.collect()
    torch.cuda.empty_cache()  # vLLM sizes its cache from the memory free when it starts
    return runs


def vllm_run(path: Path, requests: list[Request], args: argparse.Namespace) -> Run:
    from vlmscope.models.vllm_backend import VLLMBackend

    config = VLLMModelConfig(
        backend="vllm", name="vllm", path=str(path), dtype="bfloat16",
        batch_size=len(requests), max_new_tokens=args.max_new_tokens,
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=args.max_model_len,
        # the requests carry at most 3 images: vLLM reserves memory for this many per prompt
        image_budget=ImageBudget(max_images=4),
    )  # fmt: skip
    backend = VLLMBackend(config)
    backend.generate(requests[:2])  # load, compile, capture the CUDA graphs
    return timed("vllm", backend, requests)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--model", nargs="+", choices=sorted(MODELS), default=sorted(MODELS))
    parser.add_argument("--n", type=int, default=64, help="requests (0-3 images each)")
    parser.add_argument("--batch-size", type=int, default=16, help="the hf backend's")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--max-side", type=int, default=768, help="largest image side, px")
    parser.add_argument("--max-model-len", type=int, default=8192)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.6)
    parser.add_argument("--model-dir", type=Path, help="keep the built models here")
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args(argv)

    why = unavailable()
    if why is not None:
        print(
            f"vllm_throughput: needs a CUDA GPU and vLLM, and here {why}. Nothing was measured; "
            "run it on a GPU machine with `pip install 'vlmscope[vllm]'`.",
            file=sys.stderr,
        )
        return 2
    if len(args.model) > 1:  # one process per model: each starts with the whole GPU free
        codes = []
        for name in args.model:
            child = [sys.executable, __file__, "--model", name, *_passed_on(args)]
            codes.append(subprocess.run(child, check=False).returncode)
        return max(codes)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    requests = workload(args.n, args.max_side, args.max_new_tokens)
    print(f"{torch.cuda.get_device_name()}: {args.n} requests (0-3 images, sides up to "
          f"{args.max_side} px), up to {args.max_new_tokens} new tokens, bfloat16")  # fmt: skip
    for name in args.model:
        with tempfile.TemporaryDirectory() as scratch:
            path = (args.model_dir or Path(scratch)) / name
            label = build(name, path) if not (path / "config.json").is_file() else name
            runs = [*hf_runs(path, requests, args), vllm_run(path, requests, args)]
        single, batched, fast = runs
        print(f"\n{label}")
        print(f"{'backend':<18} {'tokens':>7} {'seconds':>8} {'tokens/s':>9} {'vs one':>7} "
              f"{'failed':>6}")  # fmt: skip
        for run in runs:
            rate = run.tokens / run.seconds
            print(f"{run.label:<18} {run.tokens:>7} {run.seconds:>8.2f} {rate:>9.1f} "
                  f"{rate / (single.tokens / single.seconds):>6.1f}x {run.failed:>6}")  # fmt: skip
        same, _ = agreement(single.responses, batched.responses)
        print(f"hf batched vs one at a time: {same}/{args.n} identical (must be all)")
        same, prefix = agreement(single.responses, fast.responses)
        print(f"vllm vs hf one at a time: {same}/{args.n} identical, mean common prefix "
              f"{100 * prefix:.0f}% of the shorter answer")  # fmt: skip
    return 0


def _passed_on(args: argparse.Namespace) -> list[str]:
    passed = []
    for option in ("n", "batch_size", "max_new_tokens", "max_side", "max_model_len",
                   "gpu_memory_utilization", "model_dir"):  # fmt: skip
        value = getattr(args, option)
        if value is not None:
            passed += [f"--{option.replace('_', '-')}", str(value)]
    return passed


if __name__ == "__main__":
    sys.exit(main())
