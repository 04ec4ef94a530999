"""Facts about how a (model, track) was generated, stated in its summary.

The reply limit has one rule (`vlmscope.messages.effective_max_new_tokens`: the track's own
limit, lowered by the model config's cap); the summary says what it came to, so a truncated
answer can be traced to a setting rather than guessed at. For local models it also says whether
the answers were decoded batch-invariantly (identical whatever the batch) or not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.messages import effective_max_new_tokens
from vlmscope.tracks.base import Sample


def generation_facts(samples: Sequence[Sample], identity: Mapping[str, Any]) -> dict[str, Any]:
    """The track's requested limits, the model's cap and the effective limits, and temperature."""
    requested = sorted({s.request.params.max_new_tokens for s in samples})
    temperatures = sorted({s.request.params.temperature for s in samples})
    cap = identity.get("max_new_tokens")
    facts: dict[str, Any] = {
        "track_max_new_tokens": requested,
        "model_max_new_tokens": cap,
        "max_new_tokens": sorted({effective_max_new_tokens(n, cap) for n in requested}),
        "temperature": temperatures,
    }
    if identity.get("backend") == "hf":  # whether the answers depend on the batch they ran in
        facts["batch_invariant"] = bool(identity.get("batch_invariant", False))
    return facts
