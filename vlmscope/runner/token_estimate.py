"""How many tokens a request will take, before it is sent: the dry run's and the budget's count.

Input tokens are counted from the request as the model would get it (its image budget and the
config's system prompt applied):

- a local model (`hf`, or `vllm` with a local folder): its own processor and chat template count
  the prompt, image tokens included, exactly as the `hf` backend encodes it;
- an API model: an approximation, stated wherever it is used: text at `chars_per_token`
  characters per token (4, the usual rule of thumb for English; Chinese and code take more
  tokens per character), plus each image's tokens (`image_tokens` when given, else OpenAI's
  rule for a detailed image: 85 plus 170 per 512-px tile of the image fitted within 2048 px
  and its shorter side scaled to 768 px);
- the oracle and the coin stand-in count none (they report none).

Output tokens are expected, not counted: the model's mean reply over its earlier answers in the
cache when it has some (capped at each request's limit), else `output_tokens` (capped too).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from vlmscope.config import (
    CoinModelConfig,
    HFModelConfig,
    ModelConfig,
    OracleModelConfig,
    VLLMModelConfig,
)
from vlmscope.messages import ImagePart, Request, effective_max_new_tokens
from vlmscope.models.images import apply_image_budget
from vlmscope.models.prompting import with_system_prompt
from vlmscope.runner.cache_reader import CacheReader

MESSAGE_OVERHEAD = 4
"""Tokens a chat format adds per message (role markers), in the approximation."""
EARLIER_REPLIES = 2000
"""How many of a model's latest cached replies its expected reply length is taken from."""


@dataclass(frozen=True)
class EstimateSettings:
    """The knobs of the approximation (`vlmscope run --dry-run --help` names them)."""

    output_tokens: int = 256
    chars_per_token: float = 4.0
    image_tokens: int | None = None


Counter = Callable[[Request], int]


@dataclass(frozen=True)
class ModelEstimate:
    """How one model's requests are counted: `prompt_tokens(request)`, the expected reply
    length before its cap, and how both were arrived at (for the dry run's table)."""

    model: str
    prompt_tokens: Counter
    expected_output: int
    method: str
    output_source: str
    cap: int | None = None

    def output_tokens(self, request: Request) -> int:
        limit = effective_max_new_tokens(request.params.max_new_tokens, self.cap)
        return 0 if self.expected_output == 0 else min(self.expected_output, limit)


def estimate_for(
    config: ModelConfig, settings: EstimateSettings, cache: CacheReader
) -> ModelEstimate:
    """The estimate of `config`'s requests; `cache` holds its earlier answers, if any."""
    if isinstance(config, OracleModelConfig | CoinModelConfig):
        return ModelEstimate(config.name, lambda r: 0, 0, "stand-in: no tokens", "none")
    cap = getattr(config, "max_new_tokens", None)
    earlier = earlier_output(cache, config.name)
    if earlier is None:
        expected = settings.output_tokens
        source = assumed_output(config, expected)
    else:
        expected, source = earlier, f"{earlier}, its earlier replies' mean, at most the limit"
    local = _local_counter(config)
    if local is not None:
        counter, method = local
    else:
        counter = approximate_counter(config, settings)
        images = (
            f"{settings.image_tokens}/image"
            if settings.image_tokens is not None
            else "images by OpenAI's tile rule"
        )
        method = f"approximated: {settings.chars_per_token:g} chars/token, {images}"
    return ModelEstimate(config.name, counter, expected, method, source, cap)


def assumed_output(config: ModelConfig, expected: int) -> str:
    """How the expected reply length of a model with no earlier reply was arrived at. A
    reasoning API's reasoning tokens are billed as output and often run to thousands a reply,
    so an estimate at the default would read as a fraction of the cost; it says so."""
    source = f"assumed {expected} (--output-tokens), at most each request's limit"
    effort = getattr(config, "reasoning_effort", None)
    if effort is None:
        return source
    return (
        f"{source}; its reasoning (reasoning_effort: {effort}) is output too, often thousands of "
        "tokens a reply: give --output-tokens what it writes, or run a --limit first, whose "
        "replies the estimate then reads"
    )


def earlier_output(cache: CacheReader, model: str) -> int | None:
    """The mean completion tokens of the model's latest answered requests in the cache; None
    without any."""
    counted = [
        r.usage.completion_tokens
        for r in cache.latest(model, EARLIER_REPLIES)
        if r.usage.completion_tokens > 0
    ]
    return round(sum(counted) / len(counted)) if counted else None


def approximate_counter(config: ModelConfig, settings: EstimateSettings) -> Counter:
    budget = config.image_budget
    system = getattr(config, "system_prompt", None)

    def count(request: Request) -> int:
        fitted, _ = apply_image_budget(with_system_prompt(request, system), budget)
        text = (fitted.system or "") + "".join(t.text for t in fitted.turns)
        messages = len(fitted.turns) + (1 if fitted.system else 0)
        images = sum(
            settings.image_tokens if settings.image_tokens is not None else openai_image_tokens(p)
            for p in fitted.images
        )
        return (
            math.ceil(len(text) / settings.chars_per_token) + MESSAGE_OVERHEAD * messages + images
        )

    return count


def openai_image_tokens(image: ImagePart) -> int:
    """OpenAI's count for a detailed image: 85 + 170 per 512-px tile after fitting the image in
    2048 x 2048 and scaling its shorter side to 768 (never up)."""
    try:
        with Image.open(io.BytesIO(image.data)) as opened:
            width, height = opened.size
    except OSError:
        return 85
    scale = min(1.0, 2048 / max(width, height))
    fitted = (width * scale, height * scale)
    scale = min(1.0, 768 / min(fitted))
    tiles = math.ceil(fitted[0] * scale / 512) * math.ceil(fitted[1] * scale / 512)
    return 85 + 170 * tiles


def _local_counter(config: ModelConfig) -> tuple[Counter, str] | None:
    """The model's own processor counting prompts, for a local model whose folder is there (a
    tiny test model is built first, as a run would); None otherwise."""
    if not isinstance(config, HFModelConfig | VLLMModelConfig):
        return None
    if isinstance(config, HFModelConfig) and config.tiny_arch is not None:
        from vlmscope.models.tiny import ensure_tiny_model

        ensure_tiny_model(config.path, config.tiny_arch)
    if not Path(config.path).expanduser().is_dir():
        return None
    from transformers import AutoProcessor

    from vlmscope.models.hf_inputs import Encoder

    path = str(Path(config.path).expanduser().resolve())
    try:
        processor = AutoProcessor.from_pretrained(path, backend="pil")
    except (TypeError, ValueError, ImportError):
        processor = AutoProcessor.from_pretrained(path)
    kwargs = config.generation.chat_template_kwargs
    encoder = Encoder(processor, config.image_budget, None, config.system_prompt, kwargs)

    def count(request: Request) -> int:
        prepared = encoder.prepare(request, request.params.max_new_tokens)
        return getattr(prepared, "prompt_tokens", 0)

    return count, f"counted with its processor ({config.path})"
