"""Random-weight vision-language models for tests and demos, built offline.

The whole pipeline (processor, chat template, batching, image budget, cache) must be testable
without downloading a model, so these builders make a complete transformers model directory from
nothing: a byte-level BPE tokenizer trained on a small synthetic corpus, a processor with a chat
template, a config and random weights. The answers are noise; they are NOT for evaluation.

Pitfalls the recipe avoids (all seen with transformers 5): the processor needs the tokenizer's
`image_token`; batched generation needs a pad token and LEFT padding; `generation_config` needs
`pad_token_id`; Jinja `{%- -%}` trims literal newlines, so the template emits `{{ '\\n' }}`;
image processors are the PIL ones (the default ones need torchvision).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Literal

TinyArch = Literal["llava", "idefics3"]
TINY_ARCHS: tuple[TinyArch, ...] = ("llava", "idefics3")

# ChatML-style; IMAGE becomes the family's image placeholder. System text is a "system" message.
_CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "<|im_start|>{{ message['role'] }}{{ '\\n' }}"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for c in message['content'] -%}"
    "{%- if c['type'] == 'image' -%}IMAGE"
    "{%- elif c['type'] == 'text' -%}{{ c['text'] }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}<|im_end|>{{ '\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant{{ '\\n' }}{%- endif -%}"
)
_CHAT_TOKENS = ["<|im_start|>", "<|im_end|>"]
_IDEFICS3_TOKENS = {
    "image_token": "<image>",
    "fake_image_token": "<fake_token_around_image>",
    "global_image_token": "<global-img>",
    "end_of_utterance_token": "<end_of_utterance>",
}
_TILE_TOKENS = [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)]
_VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
           "num_attention_heads": 2, "image_size": 32, "patch_size": 8}  # fmt: skip
_TEXT = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 16384}  # fmt: skip


def ensure_tiny_model(path: str | os.PathLike[str], arch: TinyArch, *, seed: int = 0) -> Path:
    """Build the tiny model at `path` unless it is already there; safe for concurrent callers.

    Several data-parallel processes start at once and each may find the directory missing, so
    each builds into its own temporary directory beside the target and renames it into place;
    rename is atomic, the first one wins and the others throw their copy away.
    """
    target = Path(path)
    if (target / "config.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        build_tiny_model(staging, arch, seed=seed)
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def build_tiny_model(
    out_dir: str | os.PathLike[str],
    arch: TinyArch,
    *,
    seed: int = 0,
    text: dict[str, Any] | None = None,
    vision: dict[str, Any] | None = None,
    device: str | None = None,
    dtype: str | None = None,
) -> int:
    """Write a random-weight `arch` model to `out_dir`; returns its parameter count.

    `text` and `vision` override the tiny sizes (a benchmark builds a full-size model this way,
    on `device` to make initialisation fast, saved in `dtype`). The processor's tile size and
    image-token count follow the vision config. Same seed, same files.
    """
    import torch

    tokenizer = _train_tokenizer(arch)
    text_config = {**_TEXT, **(text or {})}
    vision_config = {**_VISION, **(vision or {})}
    builder = _build_llava if arch == "llava" else _build_idefics3
    torch.manual_seed(seed)
    with torch.device(device or "cpu"):
        model, processor = builder(
            tokenizer, _with_token_ids(text_config, tokenizer), vision_config
        )
    if dtype is not None:
        model = model.to(getattr(torch, dtype))
    model.generation_config = _greedy_config(tokenizer)
    model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return sum(p.numel() for p in model.parameters())


def _train_tokenizer(arch: TinyArch) -> Any:
    """Byte-level BPE (any text encodes) where every special token is one id."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    named = {"image_token": "<image>"} if arch == "llava" else _IDEFICS3_TOKENS
    extra = [] if arch == "llava" else _TILE_TOKENS
    special = ["<pad>", "<s>", "</s>", *_CHAT_TOKENS, *named.values(), *extra]
    corpus = [
        f"What is the colour of object {i}? It is red, green, blue or gray. Answer: {i % 7}"
        for i in range(2000)
    ] + ["The quick brown fox jumps over the lazy dog."] * 50
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1024,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        extra_special_tokens=named,
        padding_side="left",
        model_max_length=16384,
    )


def _with_token_ids(text: dict[str, Any], tokenizer: Any) -> dict[str, Any]:
    return {
        **text,
        "vocab_size": len(tokenizer),
        "pad_token_id": tokenizer.pad_token_id,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
    }


def _greedy_config(tokenizer: Any) -> Any:
    from transformers import GenerationConfig

    return GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        do_sample=False,
        max_new_tokens=32,
    )


def _build_llava(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    from transformers import (
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    size, patch = vision["image_size"], vision["patch_size"]
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(projection_dim=vision["hidden_size"], **vision),
        text_config=LlamaConfig(**text),
        image_token_index=tokenizer.image_token_id,
        image_seq_length=(size // patch) ** 2,
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    image_processor = CLIPImageProcessorPil(
        size={"shortest_edge": size}, crop_size={"height": size, "width": size}
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=patch,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_CHAT_TEMPLATE.replace("IMAGE", "<image>"),
    )
    return LlavaForConditionalGeneration(config), processor


def _build_idefics3(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3ImageProcessorPil,
        Idefics3Processor,
        Idefics3VisionConfig,
        LlamaConfig,
    )

    size, patch = vision["image_size"], vision["patch_size"]
    scale = 2 if (size // patch) % 2 == 0 else 3  # pixel shuffle; SmolVLM: 3 on 27x27 patches
    config = Idefics3Config(
        vision_config=Idefics3VisionConfig(**vision),
        text_config=LlamaConfig(**text).to_dict(),
        image_token_id=tokenizer.image_token_id,
        scale_factor=scale,
    )
    image_processor = Idefics3ImageProcessorPil(
        do_image_splitting=True,
        size={"longest_edge": 2 * size},
        max_image_size={"longest_edge": size},
    )
    processor = Idefics3Processor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        image_seq_len=(size // patch) ** 2 // scale**2,
        chat_template=_CHAT_TEMPLATE.replace("IMAGE", "<image>"),
    )
    return Idefics3ForConditionalGeneration(config), processor
