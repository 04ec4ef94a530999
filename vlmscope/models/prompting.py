"""What a model config adds to every request it answers: its system prompt and decoding.

A request is what a track asks (its hash is the request part of the cache key); a model's own
system prompt and generation options belong to the model, so they are applied by the backend
when it sends the request, and they are in the backend's identity (the other part of the key).
The same rules hold for every backend, so they live here once.
"""

from __future__ import annotations

from vlmscope.config import GenerationOptions
from vlmscope.messages import Request


def system_text(model_system: str | None, request_system: str | None) -> str | None:
    """The model's system prompt first, then the track's own system text, a blank line apart
    (a judge prompt's instructions stay whole; the model's standing instructions lead)."""
    parts = [text for text in (model_system, request_system) if text]
    return "\n\n".join(parts) if parts else None


def with_system_prompt(request: Request, model_system: str | None) -> Request:
    """`request` as the model is sent it; the same object when the model sets no prompt."""
    if not model_system:
        return request
    system = system_text(model_system, request.system)
    return Request(request.turns, system, request.params, request.system_parts)


def temperature(request: Request, options: GenerationOptions) -> float:
    """The model config's temperature when it sets one, else the track's (the official rule,
    greedy for every benchmark here)."""
    return request.params.temperature if options.temperature is None else options.temperature
