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

from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, Request, effective_max_new_tokens
from vlmscope.models.hf_inputs import Encoder
from vlmscope.models.images import limit_images


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


def sampling_kwargs(params: GenerationParams, max_new_tokens: int | None) -> dict[str, Any]:
    """Greedy decoding (as the hf backend: answers must repeat, so a request's temperature is
    not used) up to the request's token limit, lowered to the config's cap when set."""
    return {
        "max_tokens": effective_max_new_tokens(params.max_new_tokens, max_new_tokens),
        "temperature": 0.0,
        "n": 1,
        "skip_special_tokens": True,
    }


def to_vllm(
    request: Request,
    template: ChatTemplate,
    budget: ImageBudget,
    max_new_tokens: int | None = None,
    *,
    keep: int | None = None,
) -> VLLMInput:
    """`request` within `budget` (at most `keep` images when given: a retry after a context
    overflow); raises ValueError when an image cannot be read (PIL's OSError when its data is
    cut short, as in the hf backend)."""
    fitted, notes = limit_images(
        request, budget.max_images if keep is None else keep, budget.max_side
    )
    prompt_text, images = Encoder(template, budget, None).prompt_and_images(fitted)
    prompt: dict[str, Any] = {"prompt": prompt_text}
    if images:
        prompt["multi_modal_data"] = {"image": images}
    return VLLMInput(
        prompt=prompt,
        sampling=sampling_kwargs(request.params, max_new_tokens),
        images=len(images),
        notes=tuple(notes),
    )
