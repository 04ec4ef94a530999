"""The cache key of a model's answer to a request: the same in the generate and score phases.

An answer depends on the request and on the model (`Backend.identity`); the oracle's also on
the reference it answers with (`Sample.reference`), which a track can change while the request
stays the same (a new `anchor_answers` file for VisionArena-Bench). So the oracle's key holds
the reference too, and a changed reference is asked again instead of served from the cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.config import ModelConfig, OracleModelConfig
from vlmscope.messages import Request, cache_key
from vlmscope.tracks.base import Sample
from vlmscope.tracks.conversation import reference_turns


def oracle_references(
    model_config: ModelConfig, samples_by_track: Sequence[Sequence[Sample]]
) -> dict[str, str] | None:
    """Request hash -> the reference the oracle answers it with; None for any other model."""
    if not isinstance(model_config, OracleModelConfig):  # only the oracle answers with them
        return None
    return {
        request.content_hash(): reference
        for samples in samples_by_track
        for sample in samples
        for request, reference in reference_turns(sample)
    }


class AnswerKeys:
    """`keys(request)`: the cache key of this model's answer to `request`."""

    def __init__(
        self, identity: Mapping[str, Any], references: Mapping[str, str] | None = None
    ) -> None:
        self.identity = dict(identity)
        self.references = references

    def __call__(self, request: Request) -> str:
        if self.references is None:
            return cache_key(self.identity, request)
        reference = self.references.get(request.content_hash())
        return cache_key({**self.identity, "reference": reference}, request)
