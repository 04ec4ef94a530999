"""Random-weight vision-language models for tests and demos, built offline.

The whole pipeline (processor, chat template, batching, image budget, cache) must be testable
without downloading a model, so these builders make a complete transformers model directory from
nothing: a byte-level BPE tokenizer trained on a small synthetic corpus, a processor with a chat
template, a config and random weights. The answers are noise; they are NOT for evaluation.

Pitfalls the recipe avoids (all seen with transformers 5): the processor needs the tokenizer's
`image_token`; batched generation needs a pad token and LEFT padding; `generation_config` needs
`pad_token_id`; Jinja `{%- -%}` trims literal newlines, so the template emits `{{ '\\n' }}`;
image processors are the PIL ones (the default ones need torchvision, which the families with a
video processor need anyway: see `tiny_families`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

from vlmscope.config import TinyArch
from vlmscope.models.tiny_families import FAMILIES, TinyFamily

TINY_ARCHS: tuple[TinyArch, ...] = get_args(TinyArch)

_VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
           "num_attention_heads": 2, "image_size": 32, "patch_size": 8}  # fmt: skip
_TEXT = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 16384}  # fmt: skip


def needs_torchvision(arch: TinyArch) -> bool:
    """Whether the family's processor can only be built with torchvision installed."""
    return FAMILIES[arch].needs_torchvision


def torchvision_works() -> bool:
    """Whether torchvision imports here (it may be absent, or built for another torch)."""
    try:
        import torchvision  # noqa: F401
    except Exception:  # a mismatched build fails on import with errors of its own
        return False
    return True


def ensure_tiny_model(path: str | os.PathLike[str], arch: TinyArch, *, seed: int = 0) -> Path:
    """Build the tiny model at `path` unless it is already there; safe for concurrent callers.

    Several data-parallel processes start at once and each may find the directory missing, so
    each builds into its own temporary directory beside the target and renames it into place;
    rename is atomic, the first one wins and the others throw their copy away.
    """
    return build_in_place(path, lambda staging: build_tiny_model(staging, arch, seed=seed))


def build_in_place(path: str | os.PathLike[str], build: Callable[[Path], object]) -> Path:
    """`build(staging)` writes a model directory; it lands at `path` whole, or not at all
    (a directory with a `config.json` already there is kept): see `ensure_tiny_model`."""
    target = Path(path)
    if (target / "config.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        build(staging)
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

    family = FAMILIES[arch]
    tokenizer = _train_tokenizer(family)
    text_config = {**_TEXT, **(text or {})}
    vision_config = {**_VISION, **family.vision, **(vision or {})}
    torch.manual_seed(seed)
    with torch.device(device or "cpu"):
        model, processor = family.builder(
            tokenizer, _with_token_ids(text_config, tokenizer), vision_config
        )
    if dtype is not None:
        model = model.to(getattr(torch, dtype))
    model.generation_config = _greedy_config(tokenizer, family)
    model.save_pretrained(out_dir)
    processor.save_pretrained(out_dir)
    return sum(p.numel() for p in model.parameters())


def train_bpe(corpus: list[str], special: list[str], vocab_size: int) -> Any:
    """A byte-level BPE `tokenizers.Tokenizer` trained on `corpus`: any text encodes, and each
    of `special` is one id, in order from 0."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer=trainer)
    return tokenizer


def _train_tokenizer(family: TinyFamily) -> Any:
    """Byte-level BPE (any text encodes) where every special token is one id."""
    from transformers import PreTrainedTokenizerFast

    named = family.named_tokens
    special = ["<pad>", "<s>", "</s>", *family.turn_tokens, *named.values(), *family.extra_tokens]
    corpus = [
        f"What is the colour of object {i}? It is red, green, blue or gray. Answer: {i % 7}"
        for i in range(2000)
    ] + ["The quick brown fox jumps over the lazy dog."] * 50
    tokenizer = train_bpe(corpus, special, 1024)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        extra_special_tokens=dict(named),
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


def _greedy_config(tokenizer: Any, family: TinyFamily) -> Any:
    """Greedy; like the real models', generation stops at the end-of-turn token as well."""
    from transformers import GenerationConfig

    stop = [tokenizer.eos_token_id]
    if family.end_of_turn is not None:
        stop.append(tokenizer.convert_tokens_to_ids(family.end_of_turn))
    return GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=stop if len(stop) > 1 else stop[0],
        pad_token_id=tokenizer.pad_token_id,
        do_sample=False,
        max_new_tokens=32,
    )
