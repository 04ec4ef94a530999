"""A random-weight CLIP built from a config, for testing the bench curation offline.

`vlmscope visionarena build-bench` embeds prompts with a CLIP-family model through
`transformers` (`clip_embedder`); its tests and demos cannot download one, so this writes a
complete model directory from nothing, as `tiny` does for the vision-language models: a
byte-level BPE tokenizer (start and end tokens added to every text, as CLIP's tokenizer adds
them; CLIP pools the end token), a PIL image processor, a `CLIPConfig` with two small layers
per tower and random weights. `AutoModel` and `AutoProcessor` load it like any CLIP
checkpoint. Its vectors are noise: NOT for curating a real bench. Same seed, same files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vlmscope.models.tiny import build_in_place, train_bpe

#: The tiny towers: 32 px images in 8 px patches, 32-wide transformers of two layers.
VISION: dict[str, Any] = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
          "num_attention_heads": 2, "image_size": 32, "patch_size": 8}  # fmt: skip
TEXT: dict[str, Any] = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 2, "max_position_embeddings": 77}  # fmt: skip
PROJECTION_DIM = 16
#: Start, end and pad: the end token is not id 2, which CLIP reads as "pool the highest id".
SPECIAL = ("<|startoftext|>", "<|endoftext|>", "<pad>")


def ensure_tiny_clip(path: str | os.PathLike[str], *, seed: int = 0) -> Path:
    """The tiny CLIP at `path`, built unless already there (atomically, as `ensure_tiny_model`)."""
    return build_in_place(path, lambda staging: build_tiny_clip(staging, seed=seed))


def build_tiny_clip(out_dir: str | os.PathLike[str], *, seed: int = 0) -> int:
    """Write the random-weight CLIP to `out_dir`; returns its parameter count."""
    import torch
    import transformers

    tokenizer = _tokenizer()
    ids: dict[str, Any] = {
        "vocab_size": len(tokenizer),
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
    }
    config = transformers.CLIPConfig(
        text_config=transformers.CLIPTextConfig(**TEXT, **ids).to_dict(),
        vision_config=transformers.CLIPVisionConfig(**VISION).to_dict(),
        projection_dim=PROJECTION_DIM,
    )
    torch.manual_seed(seed)
    model = transformers.CLIPModel(config)
    side = {"height": VISION["image_size"], "width": VISION["image_size"]}
    processor = transformers.CLIPProcessor(
        image_processor=transformers.CLIPImageProcessorPil(
            size={"shortest_edge": VISION["image_size"]}, crop_size=side
        ),
        tokenizer=tokenizer,
    )
    model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return sum(p.numel() for p in model.parameters())


def _tokenizer() -> Any:
    """Byte-level BPE over a small corpus; every text becomes <|startoftext|> ... <|endoftext|>,
    padded on the right with <pad>, as CLIP's tokenizer does."""
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    start, end, pad = SPECIAL
    corpus = [
        f"Describe picture {i}: a red, green or blue shape; solve the sum {i} + {i % 9}."
        for i in range(500)
    ] + ["What does the sign say? Who painted this? Write a poem about the photo."] * 20
    tokenizer = train_bpe(corpus, list(SPECIAL), 512)
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{start} $A {end}",
        special_tokens=[(start, tokenizer.token_to_id(start)), (end, tokenizer.token_to_id(end))],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=start,
        eos_token=end,
        pad_token=pad,
        padding_side="right",
        model_max_length=TEXT["max_position_embeddings"],
    )
