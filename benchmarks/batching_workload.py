"""The workload and model layouts of `batching.py` (and `vllm_throughput.py`), and a device's
measured memory bandwidth (the bound a decode step's weight reads are held to)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image

from vlmscope.messages import GenerationParams, Request, user_request

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


def device_bandwidth(device: str, gigabytes: float = 2.0) -> float:
    """Bytes per second a device-to-device copy moves, counting bytes read and written (the
    median of ten copies of `gigabytes`, after a warm-up)."""
    import torch

    source = torch.empty(int(gigabytes * 1e9) // 2, dtype=torch.bfloat16, device=device)
    source.random_()  # never time on zeros
    target = torch.empty_like(source)
    times = []
    for _ in range(11):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        target.copy_(source)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    del source, target
    torch.cuda.empty_cache()
    return 2 * gigabytes * 1e9 / sorted(times[1:])[5]
