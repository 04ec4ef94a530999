"""Turn a request into what vLLM's offline `LLM.generate` takes: a pure translation.

vLLM is given the same prompt the `hf` backend builds (the processor's chat template over the
same messages, image placeholders in order, via `hf_inputs.Encoder.prompt_and_images`) and the
same images (the image budget: the last `max_images` kept, the longer side capped at `max_side`,
via `images.limit_images`; decoded to RGB), as

    {"prompt": "<chat-template text>", "multi_modal_data": {"image": [PIL.Image, ...]}}

(no `multi_modal_data` when a request has no image), with `SamplingParams` keyword arguments
for greedy decoding up to the request's own token limit. Nothing here imports vLLM, so the
translation is tested without it, on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from vlmscope.config import GenerationOptions, ImageBudget
from vlmscope.messages import GenerationParams, Request, effective_max_new_tokens
from vlmscope.models.hf_inputs import Encoder
from vlmscope.models.images import limit_images

UNSET = GenerationOptions()
"""No generation option set: each track's rule (greedy, its token limit)."""


class ChatTemplate(Protocol):
    """What the translation needs from a transformers processor (or tokenizer)."""

    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class VLLMInput:
    """One request as vLLM takes it, and what the image budget did to it."""

    prompt: dict[str, Any]  # a vLLM TextPrompt
    sampling: dict[str, Any]  # keyword arguments of vllm.SamplingParams
    images: int  # how many images it carries
    notes: tuple[str, ...] = ()


def sampling_kwargs(
    params: GenerationParams,
    max_new_tokens: int | None,
    options: GenerationOptions = UNSET,
) -> dict[str, Any]:
    """Greedy decoding (as the hf backend: answers must repeat, so a request's temperature is
    not used) up to the request's token limit, lowered to the config's cap when set; the model
    config's generation options (a temperature to sample at, top_p, stop strings, ...) on top."""
    kwargs: dict[str, Any] = {
        "max_tokens": effective_max_new_tokens(params.max_new_tokens, max_new_tokens),
        "temperature": 0.0 if options.temperature is None else options.temperature,
        "n": 1,
        "skip_special_tokens": True,
    }
    for name in ("top_p", "top_k", "seed", "repetition_penalty"):
        if (value := getattr(options, name)) is not None:
            kwargs[name] = value
    if options.stop:
        kwargs["stop"] = list(options.stop)
    return kwargs


def to_vllm(
    request: Request,
    template: ChatTemplate,
    budget: ImageBudget,
    max_new_tokens: int | None = None,
    *,
    keep: int | None = None,
    system_prompt: str | None = None,
    options: GenerationOptions = UNSET,
) -> VLLMInput:
    """`request` within `budget` (at most `keep` images when given: a retry after a context
    overflow), with the model config's system prompt and generation options; raises
    ValueError when an image cannot be read (PIL's OSError when its data is cut short, as in
    the hf backend)."""
    fitted, notes = limit_images(
        request, budget.max_images if keep is None else keep, budget.max_side
    )
    encoder = Encoder(template, budget, None, system_prompt, options.chat_template_kwargs)
    prompt_text, images = encoder.prompt_and_images(fitted)
    prompt: dict[str, Any] = {"prompt": prompt_text}
    if images:
        prompt["multi_modal_data"] = {"image": images}
    return VLLMInput(
        prompt=prompt,
        sampling=sampling_kwargs(request.params, max_new_tokens, options),
        images=len(images),
        notes=tuple(notes),
    )
