"""Facts about how a (model, track) was generated, stated in its summary.

The data a result stands on is stated too: the Hub repo and the commit its revision resolved
to, or the local folder, each with a fingerprint of the files read; or the shipped sample.

The reply limit has one rule (`vlmscope.messages.effective_max_new_tokens`: the track's own
limit, lowered by the model config's cap); the summary says what it came to, so a truncated
answer can be traced to a setting rather than guessed at. It also names the model config's own
prompt, decoding and reasoning options (those it sets), counts the reasoning (how many answers
came with a trace, how many ended inside it, and its tokens), and for local models says whether
the answers were decoded batch-invariantly (identical whatever the batch) or not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.config import option_fields
from vlmscope.hub_data import DataOrigin
from vlmscope.messages import Response, effective_max_new_tokens
from vlmscope.tracks.base import Sample


def generation_facts(samples: Sequence[Sample], identity: Mapping[str, Any]) -> dict[str, Any]:
    """The track's requested limits, the model's cap and the effective limits, and temperature
    (the model config's when it sets one, which overrides the track's; None when none is sent
    and the server decodes at its own); `model_options`: the options the model config sets,
    when it sets any."""
    requested = sorted({s.request.params.max_new_tokens for s in samples})
    temperatures = sorted({s.request.params.temperature for s in samples})
    cap = identity.get("max_new_tokens")
    options = {name: identity[name] for name in sorted(option_fields()) if name in identity}
    override = options.get("generation", {}).get("temperature")
    facts: dict[str, Any] = {
        "track_max_new_tokens": requested,
        "model_max_new_tokens": cap,
        "max_new_tokens": sorted({effective_max_new_tokens(n, cap) for n in requested}),
        "temperature": temperatures if override is None else [override],
    }
    if options.get("send_temperature") is False:
        facts["temperature"] = None
    if override is not None:
        facts["track_temperature"] = temperatures
    if options:
        facts["model_options"] = options
    if identity.get("backend") == "hf":  # whether the answers depend on the batch they ran in
        facts["batch_invariant"] = bool(identity.get("batch_invariant", False))
    return facts


def reasoning_facts(responses: Sequence[Response]) -> dict[str, Any] | None:
    """How the model reasoned, over its answered requests; None when it never did.

    `answers_with_reasoning`: replies that came with a trace (or reasoning tokens);
    `truncated_in_reasoning`: those that ended inside it, so they have no answer;
    `reasoning_tokens` their total and mean per reasoned answer, and how many of the counts are
    `estimated` (the server gave none)."""
    reasoned = [
        r
        for r in responses
        if r.ok and (r.reasoning or r.usage.reasoning_tokens or r.truncated_in_reasoning)
    ]
    if not reasoned:
        return None
    tokens = sum(r.usage.reasoning_tokens for r in reasoned)
    return {
        "answers_with_reasoning": len(reasoned),
        "truncated_in_reasoning": sum(r.truncated_in_reasoning for r in reasoned),
        "reasoning_tokens": tokens,
        "mean_reasoning_tokens": tokens / len(reasoned),
        "estimated": sum(r.usage.reasoning_tokens_estimated for r in reasoned),
    }


def data_facts(origin: DataOrigin | None) -> dict[str, Any]:
    """The summary's `data`: source ("hub", "local" or "sample"), repo, revision, commit,
    fingerprint and file count (None where they do not apply)."""
    if origin is None:
        return {"source": "sample"}
    if origin.repo is None:
        return {"source": "local", "data_dir": str(origin.folder), **origin.to_json()}
    return {"source": "hub", **origin.to_json()}
