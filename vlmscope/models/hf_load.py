"""Loading a local `transformers` VLM for the `hf` backend: processor, model, stop tokens.

Loading is the one place that knows how transformers wants to be called for generation:
left padding (generation continues from each row's last real token), a pad token, the PIL
image processors where a processor accepts them (they work without torchvision), and every
token that ends an answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.config import HFModelConfig
from vlmscope.models.hf_generation import Decoding
from vlmscope.models.hf_inputs import Encoder
from vlmscope.models.reasoning import resolve_tags


@dataclass(frozen=True)
class Loaded:
    """A model ready to answer, with what every generation path needs beside it."""

    processor: Any
    model: Any
    encoder: Encoder
    stop_ids: frozenset[int]
    pad_id: int
    model_type: str  # for the batching notes
    decoding: Decoding = Decoding()  # the config's generation options and reasoning tags


_HUB_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")
"""A Hub model id (`name` or `namespace/name`); anything else must be a folder that exists."""


def resolved_path(path: str, *, local: bool = False) -> str:
    """A local directory (or one `local` says will be built) as an absolute path; a Hub id as is."""
    candidate = Path(path).expanduser()
    if local or candidate.exists() or path.startswith((".", "/", "~")):
        return str(candidate.resolve())
    return path


def load(config: HFModelConfig) -> Loaded:
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    if config.tiny_arch is not None:
        from vlmscope.models.tiny import ensure_tiny_model

        ensure_tiny_model(config.path, config.tiny_arch)
    path = resolved_path(config.path, local=config.tiny_arch is not None)
    if not Path(path).exists() and not _HUB_ID.match(path):
        raise ValueError(
            f"model {config.name!r}: path {config.path!r} is neither a folder nor a Hub model id"
        )
    try:
        try:  # the PIL image processors work without torchvision
            processor = AutoProcessor.from_pretrained(path, backend="pil")
        except (TypeError, ValueError, ImportError):  # processors that reject or cannot use it
            processor = AutoProcessor.from_pretrained(path)
    except OSError as err:  # no such folder or Hub model, offline, no processor files
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(
            f"model {config.name!r}: path {config.path!r} does not load: {first}"
        ) from err
    if not hasattr(processor, "image_processor"):
        raise ValueError(f"{path}: no image processor, not a vision-language model directory")
    tokenizer = processor.tokenizer
    tokenizer.padding_side = "left"  # generation continues from each row's last real token
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = config.dtype if config.dtype == "auto" else getattr(torch, config.dtype)
    options: dict[str, Any] = {"dtype": dtype, "device_map": config.device_map}
    if config.batch_invariant:
        from vlmscope.models.batch_invariant import ROWWISE_ATTENTION, register_rowwise_attention

        register_rowwise_attention()
        options["attn_implementation"] = {"text_config": ROWWISE_ATTENTION}
    if config.decode_attention == "blocks":
        from vlmscope.models.hf_blocks import BLOCK_ATTENTION, register_block_attention

        register_block_attention()
        options["attn_implementation"] = {"text_config": BLOCK_ATTENTION}
    model = AutoModelForImageTextToText.from_pretrained(path, **options).eval()
    text_config = model.config.get_text_config()
    generation = model.generation_config
    stop = generation.eos_token_id if generation.eos_token_id is not None else []
    stop_ids = {stop} if isinstance(stop, int) else set(stop)
    if tokenizer.eos_token_id is not None:
        stop_ids.add(tokenizer.eos_token_id)
    encoder = Encoder(
        processor,
        config.image_budget,
        getattr(text_config, "max_position_embeddings", None),
        config.system_prompt,
        config.generation.chat_template_kwargs,
    )
    return Loaded(
        processor,
        model,
        encoder,
        frozenset(stop_ids),
        tokenizer.pad_token_id,
        getattr(model.config, "model_type", ""),
        Decoding(config.generation, resolve_tags(config.reasoning_tags)),
    )
