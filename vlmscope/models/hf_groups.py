"""Which requests the `hf` backend encodes and prefills together.

A prefill pass pads every row to its longest prompt, so rows of similar size go together:
inside a window of requests (answers are handed back by index, so their order is free), the
requests are sorted by image count, then text length, and cut into groups of at most `rows`
requests and `images` images (the very first group a quarter of the rows, so the device starts
early). The image budget bounds the vision tower's memory in one pass
(a SmolVLM image is up to 17 tiles) before any image is processed; a request with more images
than the budget goes alone. Once encoded, a group whose padded prompts (rows x longest) pass a
token budget is encoded again in halves (`within_tokens`): that bounds the prefill's memory when
the prompts are long texts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vlmscope.messages import Request, Response, TextPart
from vlmscope.models.hf_inputs import Prepared

Encode = Callable[[list[tuple[Request, int]]], list[Prepared | Response]]


def prefill_groups(
    requests: Sequence[Request], rows: int, images: int, window: int
) -> list[list[int]]:
    """Indices of `requests` in groups (see the module docstring); every index exactly once,
    windows in request order, so the first answers still come early."""
    groups: list[list[int]] = []
    for start in range(0, len(requests), max(window, 1)):
        ordered = sorted(
            range(start, min(start + window, len(requests))),
            key=lambda i: (len(requests[i].images), _text_length(requests[i]), i),
        )
        group: list[int] = []
        held = 0  # images in `group`
        for index in ordered:
            count = len(requests[index].images)
            # the device idles until the very first group is encoded: a quarter of the rows
            limit = rows if groups else max(1, rows // 4)
            if group and (len(group) >= limit or held + count > images):
                groups.append(group)
                group, held = [], 0
            group.append(index)
            held += count
        if group:
            groups.append(group)
    return groups


def _text_length(request: Request) -> int:
    parts = [p for turn in request.turns for p in turn.parts if isinstance(p, TextPart)]
    return sum(len(p.text) for p in parts) + len(request.system or "")


def within_tokens(
    encode: Encode, requests: list[tuple[Request, int]], tokens: int
) -> list[Prepared | Response]:
    """`encode(requests)`, unless that gives one processor output of more than `tokens`
    padded positions: then each half is encoded the same way (a request alone always is)."""
    items = encode(requests)
    shared = {id(i.inputs): i.inputs for i in items if isinstance(i, Prepared) and i.group > 1}
    if len(requests) == 1 or len(shared) != 1:
        return items  # alone, or each encoded alone already (`prepare_group`'s fallback)
    rows, width = next(iter(shared.values()))["attention_mask"].shape
    if rows * width <= tokens:
        return items
    half = len(requests) // 2
    return within_tokens(encode, requests[:half], tokens) + within_tokens(
        encode, requests[half:], tokens
    )
