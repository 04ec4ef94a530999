"""Prefill for the slots engine: one forward pass over a group of prompts encoded together.

A group is what the processor encoded in one call (left-padded); each request alone is a group
of one, which batch-invariant decoding insists on (the same shapes whatever the batch). For
every row the pass gives the first answer token, the row's own keys and values (its padding
columns cut off) and the position its next token takes. Positions count a row's real
tokens only, plus for multimodal rotary models (Qwen-VL) the row's rotary offset (images take
fewer positions than tokens), which the model leaves in `rope_deltas`.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import torch

LayerKV = list[tuple[torch.Tensor, torch.Tensor]]


class EngineUnsupported(Exception):
    """The model keeps state the slot cache cannot hold (sliding-window or recurrent layers)."""


@dataclass
class Job:
    """One request for the engine: row `row` of a processor output, and its token limit."""

    key: int
    inputs: Any  # shared by every job of its group
    max_new_tokens: int
    prompt_tokens: int
    row: int = 0


@dataclass
class Prefilled:
    job: Job
    first: int
    layer_kv: LayerKV
    position: int
    started: float = field(default_factory=time.perf_counter)


def prefill(model: Any, jobs: list[Job]) -> list[Prefilled]:
    """Run `jobs` (rows of one processor output) through `model` together."""
    started = time.perf_counter()
    # pinned host tensors (see `pinned`) copy while the host goes on
    inputs = jobs[0].inputs.to(device=model.device, dtype=model.dtype, non_blocking=True)
    mask = inputs["attention_mask"]
    width = mask.shape[1]
    inner: Any = getattr(model, "model", None)
    extra: dict[str, Any] = {}
    if hasattr(inner, "rope_deltas"):
        inner.rope_deltas = None  # multimodal rotary offsets of the previous group
    if not any(key in inputs for key in _ROTARY_GRIDS):
        # left padding: a row's positions count its real tokens only (a multimodal rotary
        # model derives them itself from the grids; without any it would count the padding)
        extra["position_ids"] = (mask.long().cumsum(-1) - 1).clamp(min=0)
    with torch.inference_mode():
        output = model(**inputs, **extra, use_cache=True, logits_to_keep=1)
    layers = _plain_layers(_output_cache(output))
    if layers[0][0].shape[2] != width:
        raise EngineUnsupported(
            f"the cache holds {layers[0][0].shape[2]} positions for {width}-wide prompts"
        )
    firsts = output.logits[:, -1].float().argmax(-1).tolist()
    deltas = getattr(inner, "rope_deltas", None)
    offsets = deltas.reshape(-1).tolist() if isinstance(deltas, torch.Tensor) else None
    prefilled = []
    for job in jobs:
        row, length = job.row, job.prompt_tokens
        own = [(k[row : row + 1, :, width - length :], v[row : row + 1, :, width - length :])
               for k, v in layers]  # fmt: skip
        position = length if offsets is None else length + int(offsets[row % len(offsets)])
        prefilled.append(Prefilled(job, int(firsts[row]), own, position, started))
    return prefilled


_ROTARY_GRIDS = ("image_grid_thw", "video_grid_thw")  # what Qwen-VL positions are computed from


def pinned(inputs: Any) -> Any:
    """`inputs` (a processor output) with its tensors in page-locked host memory, so that the
    copy to a GPU runs asynchronously; done on an encoding thread, off the device's path.
    Unchanged without CUDA."""
    if not torch.cuda.is_available():
        return inputs
    for name, value in list(inputs.items()):
        if isinstance(value, torch.Tensor) and value.device.type == "cpu":
            # no page-locked memory left: the copy then waits for the host, no harm
            with contextlib.suppress(RuntimeError):
                inputs[name] = value.pin_memory()
    return inputs


def _plain_layers(cache: Any) -> LayerKV:
    """Each layer's keys and values of a prefilled `DynamicCache` whose layers all attend to
    every earlier position; anything else (sliding windows, recurrent state) is unsupported."""
    layers = getattr(cache, "layers", None)
    if not layers:
        raise EngineUnsupported(f"no per-layer cache in {type(cache).__name__}")
    kinds = {type(layer).__name__ for layer in layers}
    if kinds != {"DynamicLayer"}:
        raise EngineUnsupported(f"cache layers of kind {', '.join(sorted(kinds))}")
    return [(layer.keys, layer.values) for layer in layers]


def _output_cache(output: Any) -> Any:
    cache = getattr(output, "cache", None)  # the name since transformers 5.24
    return cache if cache is not None else getattr(output, "past_key_values", None)
