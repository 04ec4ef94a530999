"""Batched vs one-at-a-time generation through `HFBackend`, on the same model and requests.

Both configurations must give identical answers (greedy decoding, left padding); the script
checks that and prints tokens per second for each and the ratio, one line per model family. By
default it runs every tiny random-weight family (`vlmscope make-tiny-model`) on the CPU;
`--config-from` builds a random-weight model with the sizes of a ~2B-parameter VLM (written
below as a dict: nothing is downloaded) for a GPU run.

    python benchmarks/batching.py [--arch all|llava|qwen2_5_vl|...] [--n 32] [--batch-size 8]
    python benchmarks/batching.py --config-from smolvlm-2b --device cuda --dtype bfloat16
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vlmscope.config import HFModelConfig  # noqa: E402
from vlmscope.messages import GenerationParams, Request, Response, user_request  # noqa: E402
from vlmscope.models.hf import HFBackend  # noqa: E402
from vlmscope.models.tiny import (  # noqa: E402
    TINY_ARCHS,
    build_tiny_model,
    needs_torchvision,
    torchvision_works,
)

# Text: Llama sizes of SmolVLM-Instruct's 1.7B language model (vocab is the tiny tokenizer's).
_TEXT_2B = {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24,
            "num_attention_heads": 32, "num_key_value_heads": 32,
            "max_position_embeddings": 16384, "rope_theta": 273768.0}  # fmt: skip
FULL_SIZE_CONFIGS: dict[str, dict[str, Any]] = {
    # SmolVLM-Instruct (Idefics3): SigLIP so400m at 384 px, patch 14, pixel shuffle 3 -> 81 tokens
    "smolvlm-2b": {
        "arch": "idefics3",
        "text": _TEXT_2B,
        "vision": {
            "hidden_size": 1152,
            "intermediate_size": 4304,
            "num_hidden_layers": 27,
            "num_attention_heads": 16,
            "image_size": 384,
            "patch_size": 14,
        },  # fmt: skip
    },
    # Llava layout: CLIP ViT-L/14 at 336 px (576 tokens per image) + the same 1.7B language model
    "llava-2b": {
        "arch": "llava",
        "text": _TEXT_2B,
        "vision": {
            "hidden_size": 1024,
            "intermediate_size": 4096,
            "num_hidden_layers": 24,
            "num_attention_heads": 16,
            "image_size": 336,
            "patch_size": 14,
        },  # fmt: skip
    },
}


def workload(count: int, max_side: int, max_new_tokens: int = 512, seed: int = 0) -> list[Request]:
    """Questions of different lengths with 0-3 noise images of different sizes each (also the
    workload of `vllm_throughput.py`)."""
    rng = np.random.default_rng(seed)
    requests = []
    for i in range(count):
        images = []
        for _ in range(i % 4):
            width, height = rng.integers(max_side // 4, max_side, size=2)
            pixels = rng.integers(0, 256, size=(height, width, 3), dtype=np.uint8)
            buffer = io.BytesIO()
            Image.fromarray(pixels).save(buffer, format="PNG")
            images.append(buffer.getvalue())
        question = f"Question {i}: describe the picture." + " Be precise." * int(
            rng.integers(0, 12)
        )
        params = GenerationParams(max_new_tokens=max_new_tokens)
        requests.append(user_request(*images, question, params=params))
    return requests


def timed(backend: HFBackend, requests: list[Request]) -> tuple[list[Response], float]:
    start = time.perf_counter()
    responses = backend.generate(requests)
    return responses, time.perf_counter() - start


def build(args: argparse.Namespace, arch: str, scratch: Path) -> tuple[Path, str]:
    """The model to time: given, built tiny, or built at full size with random weights."""
    if args.model_dir is not None and (args.model_dir / "config.json").is_file():
        return args.model_dir, "given"
    target = args.model_dir or scratch / arch
    if args.config_from is None:
        build_tiny_model(target, arch)  # type: ignore[arg-type]
        return target, f"tiny {arch}"
    spec = FULL_SIZE_CONFIGS[args.config_from]
    device = args.device if args.device != "cpu" else None
    params = build_tiny_model(
        target,
        spec["arch"],
        text=spec["text"],
        vision=spec["vision"],
        device=device,
        dtype=args.dtype,
    )
    return target, f"{args.config_from} layout, {params / 1e9:.2f}B random parameters"


@dataclass
class Timing:
    label: str
    tokens: int
    single_s: float
    batched_s: float
    same: int
    failed: int
    notes: list[str]


def bench(args: argparse.Namespace, path: Path, label: str) -> Timing:
    config = HFModelConfig(
        backend="hf", name="bench", path=str(path), batch_size=args.batch_size,
        dtype=args.dtype, device_map=args.device, max_new_tokens=args.max_new_tokens,
    )  # fmt: skip
    batched = HFBackend(config)
    single = batched.with_batch_size(1)
    max_side = 64 if args.config_from is None else 768
    requests = workload(args.n, max_side)
    batched.generate(requests[:2])  # load + warm up kernels
    one_by_one, single_s = timed(single, requests)
    together, batched_s = timed(batched, requests)
    return Timing(
        label=label,
        tokens=sum(r.usage.completion_tokens for r in together),
        single_s=single_s,
        batched_s=batched_s,
        same=sum(
            (a.text, a.usage) == (b.text, b.usage)
            for a, b in zip(one_by_one, together, strict=True)
        ),
        failed=sum(not r.ok for r in together + one_by_one),
        notes=batched.batching_notes,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--arch", choices=["all", *TINY_ARCHS], default="all")
    parser.add_argument("--n", type=int, default=32, help="number of requests")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--model-dir", type=Path, help="model to use, or where to build one")
    parser.add_argument("--config-from", choices=sorted(FULL_SIZE_CONFIGS))
    parser.add_argument("--device", default="cpu", help="cpu, cuda, cuda:0, ...")
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for torch")
    parser.add_argument(
        "--allow-mismatch", action="store_true", help="exit 0 even if answers differ"
    )
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    if args.config_from is not None or args.model_dir is not None:
        archs = [args.arch if args.arch != "all" else "llava"]
    else:
        archs = list(TINY_ARCHS) if args.arch == "all" else [args.arch]
    device = torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"
    print(
        f"{args.n} requests (0-3 images each), up to {args.max_new_tokens} new tokens, "
        f"{args.dtype} on {device}, {args.threads} thread(s); tokens/s one at a time vs "
        f"batch size {args.batch_size}"
    )
    print(f"{'model':<22} {'tokens':>6} {'one/s':>8} {'batch/s':>8} {'speed-up':>8}  identical")
    good = True
    for arch in archs:
        if needs_torchvision(arch) and not torchvision_works():  # type: ignore[arg-type]
            print(f"{arch:<22} skipped: its processor needs torchvision, which does not import")
            continue
        with tempfile.TemporaryDirectory() as scratch:
            path, label = build(args, arch, Path(scratch))
            t = bench(args, path, label if args.config_from or args.model_dir else arch)
        ok = t.same == args.n and t.failed == 0
        good = good and ok
        print(
            f"{t.label:<22} {t.tokens:>6} {t.tokens / t.single_s:>8.0f} "
            f"{t.tokens / t.batched_s:>8.0f} {t.single_s / t.batched_s:>7.2f}x  "
            f"{t.same}/{args.n}{'' if t.failed == 0 else f', {t.failed} failed'}"
        )
        for note in t.notes:
            print(f"{'':<22} batching fell back: {note}")
    return 0 if good or args.allow_mismatch else 1


if __name__ == "__main__":
    sys.exit(main())
