"""How the local `hf` backend decodes one model's replies, and reads them back.

By default decoding is greedy, so that answers repeat and a batch's neighbours cannot change
them. A model config's `generation` options change that: a `temperature` above 0 samples
(with the config's `top_p` and `top_k`, else the model's own `generation_config` values),
`repetition_penalty` applies either way, `stop` strings end a reply (and are cut from it, as an
API cuts them), `seed` seeds the draw. Sampled answers depend on the seed and on the batch they
were drawn in; the backend's identity holds the options, so they never share a cache entry
with greedy answers.

A reply is then cut at its first stop string and split into answer and reasoning trace
(`vlmscope.models.reasoning`); a chat template that ends its prompt inside an opened trace
(thinking switched on) makes the whole reply a trace until its closing tag.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from vlmscope.config import GenerationOptions
from vlmscope.messages import Response
from vlmscope.models.reasoning import Tags, prompt_opens_reasoning, with_reasoning


@dataclass(frozen=True)
class Decoding:
    """One model config's decoding options and reasoning tags."""

    options: GenerationOptions = GenerationOptions()
    tags: Tags | None = None


def needs_sampling(options: GenerationOptions) -> bool:
    """Whether the options ask for sampling (a temperature above 0) rather than greedy."""
    return options.temperature is not None and options.temperature > 0


def decodes_greedily(options: GenerationOptions) -> bool:
    """Whether plain greedy decoding honours `options` (no sampling, no repetition penalty, no
    stop strings): what the slots engine does, and batch-invariant decoding needs."""
    return not needs_sampling(options) and options.repetition_penalty is None and not options.stop


def generate_kwargs(options: GenerationOptions, tokenizer: Any = None) -> dict[str, Any]:
    """Keyword arguments of `model.generate` for `options` (the tokenizer is what
    `stop_strings` need to find their tokens)."""
    kwargs: dict[str, Any] = {"do_sample": False, "num_beams": 1}
    if needs_sampling(options):
        kwargs.update(do_sample=True, temperature=options.temperature)
        if options.top_p is not None:
            kwargs["top_p"] = options.top_p
        if options.top_k is not None:
            kwargs["top_k"] = options.top_k
    if options.repetition_penalty is not None:
        kwargs["repetition_penalty"] = options.repetition_penalty
    if options.stop:
        kwargs.update(stop_strings=list(options.stop), tokenizer=tokenizer)
    return kwargs


def seed_sampling(options: GenerationOptions) -> None:
    """Seed torch's generator before a sampled batch, when the options give a seed."""
    if needs_sampling(options) and options.seed is not None:
        import torch

        torch.manual_seed(options.seed)


def finish(response: Response, prompt: str, decoding: Decoding) -> Response:
    """A decoded reply as the backend returns it: cut at its first stop string, its reasoning
    trace split off (`prompt` says whether the template opened one)."""
    text = cut_at_stop(response.text, decoding.options.stop or ())
    if text != response.text:
        response = replace(response, text=text)
    opened = prompt_opens_reasoning(prompt, decoding.tags)
    return with_reasoning(response, decoding.tags, opened=opened)


def cut_at_stop(text: str, stop: tuple[str, ...] | list[str]) -> str:
    """`text` up to its first stop string (not included); as it is without one."""
    ends = [found for s in stop if (found := text.find(s)) >= 0]
    return text[: min(ends)] if ends else text
