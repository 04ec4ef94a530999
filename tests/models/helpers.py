"""Request and backend builders shared by the model tests, and a way to make a forward fail."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from vlmscope.config import HFModelConfig
from vlmscope.messages import GenerationParams, Request, user_request
from vlmscope.models.hf import HFBackend


def backend(path: Path, batch_size: int = 8, **fields: Any) -> HFBackend:
    """An HF backend on a tiny model; 12 new tokens at most unless `fields` say otherwise."""
    settings = {"backend": "hf", "name": "tiny", "path": str(path), "max_new_tokens": 12}
    return HFBackend(HFModelConfig.model_validate({**settings, "batch_size": batch_size, **fields}))


def png(width: int, height: int, seed: int) -> bytes:
    pixels = np.random.default_rng(seed).integers(0, 256, size=(height, width, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def mixed_requests(count: int = 12) -> list[Request]:
    """Different text lengths, 0-3 images of different sizes, some with system text."""
    requests = []
    for i in range(count):
        images = [png(20 + 5 * j + i, 30 + 3 * i, seed=10 * i + j) for j in range(i % 4)]
        question = f"Question {i}: what colour is it?" + " Think carefully." * (i % 5)
        requests.append(
            user_request(
                *images,
                question,
                system="Answer briefly." if i % 3 == 0 else None,
                params=GenerationParams(max_new_tokens=4 + i),
            )
        )
    return requests


class OutOfMemoryError(RuntimeError):
    """Named as torch.cuda's error is: the backends recognise out-of-memory by the name."""


def patch_forward(monkeypatch: pytest.MonkeyPatch, model: Any, fail: Any) -> None:
    """Make `model`'s forward raise what `fail(input_ids)` returns (None: run as usual)."""
    real = model.forward

    def forward(*args: Any, **kwargs: Any) -> Any:
        error = fail(kwargs["input_ids"])
        if error is not None:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "forward", forward)
