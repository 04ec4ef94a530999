"""The reference generation path: transformers' `generate` on a left-padded batch, with the
model config's decoding options (`hf_generation`: sampling, repetition penalty, stop strings).

Each row's answer is cut at its own token limit and at its first stop token, which equals what
a run of that request alone produces (greedy, left padding, an attention mask).
"""

from __future__ import annotations

import time

from vlmscope.models.hf_generation import generate_kwargs, seed_sampling
from vlmscope.models.hf_inputs import Prepared, encode
from vlmscope.models.hf_load import Loaded


def generate_tokens(loaded: Loaded, items: list[Prepared]) -> tuple[list[list[int]], float]:
    """Each item's answer tokens from one `generate` call, and the seconds it took."""
    import torch

    start = time.perf_counter()
    inputs = encode(loaded.processor, [i.prompt for i in items], [i.images for i in items])
    if not bool(inputs["attention_mask"][:, -1].all()):
        raise RuntimeError("prompts are not left-padded; batched answers would be wrong")
    model = loaded.model
    inputs = inputs.to(device=model.device, dtype=model.dtype)
    width = inputs["input_ids"].shape[1]
    seed_sampling(loaded.decoding.options)
    with torch.inference_mode():
        output = model.generate(
            **inputs,
            **generate_kwargs(loaded.decoding.options, loaded.processor.tokenizer),
            max_new_tokens=max(i.max_new_tokens for i in items),
            pad_token_id=loaded.pad_id,
        )
    rows = [
        completion(row, item.max_new_tokens, loaded.stop_ids)
        for row, item in zip(output[:, width:].tolist(), items, strict=True)
    ]
    return rows, time.perf_counter() - start


def completion(row: list[int], limit: int, stop_ids: frozenset[int]) -> list[int]:
    """The row's own answer: up to its token limit, through the first stop token (padding after)."""
    row = row[:limit]
    for position, token in enumerate(row):
        if token in stop_ids:
            return row[: position + 1]
    return row
