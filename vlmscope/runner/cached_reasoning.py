"""Answers cached before reasoning traces were kept apart are split when they are read back.

A response cached by an older version holds a reasoning model's whole reply as its text
(`<think>...</think>answer`) and no trace of its own. Scoring that text would score the
thinking (`vlmscope.models.reasoning` says why), so the runner splits such a text with the
model config's `reasoning_tags` exactly as a fresh reply is split. The cache file and its keys
stay as they are: the split is made on every read, and a response that already carries a trace
(or a failed one) is returned unchanged.
"""

from __future__ import annotations

from vlmscope.config import ModelConfig
from vlmscope.messages import Response
from vlmscope.models.reasoning import resolve_tags, with_reasoning


def resplit(response: Response | None, model: ModelConfig) -> Response | None:
    """`split_cached` of a cache lookup (None: nothing cached)."""
    return None if response is None else split_cached(response, model)


def split_cached(response: Response, model: ModelConfig) -> Response:
    """`response` with an inline trace split off, when `model` names tags and it holds one."""
    setting = getattr(model, "reasoning_tags", None)
    if not response.ok or response.reasoning or setting is None:
        return response
    tags = resolve_tags(setting)
    if tags is None or not any(tag in response.text for tag in tags):
        return response
    return with_reasoning(response, tags)
