"""A request made ready to send: its image budget applied and its body encoded, once.

Retries resend the same bytes, so a request is encoded once however often it is sent. Text
bodies are encoded in one pass before any request is sent (`text_bodies`); bodies with
images are encoded on a worker thread just ahead of their slot (`prepare`), since decoding,
resizing and base64 are CPU work the event loop must not wait on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from vlmscope.config import OpenAIModelConfig
from vlmscope.messages import Request
from vlmscope.models.images import apply_image_budget
from vlmscope.models.openai_body import encode_body
from vlmscope.models.openai_request import request_body


@dataclass(frozen=True)
class Prepared:
    """A body as sent, the notes on what the image budget changed, and the body's top-level
    field names (a server's refusal of one of them is told to the config's owner)."""

    body: bytes
    notes: tuple[str, ...]
    fields: tuple[str, ...] = ()


def encode(request: Request, config: OpenAIModelConfig, images: int | None = None) -> Prepared:
    """The body `config` asks for, with the image budget applied; ValueError for an image
    that cannot be read or a body that cannot be written as JSON. `images` is how many images
    the request carries, when counted already: with none, the budget has nothing to walk."""
    notes: list[str] = []
    budgeted = request
    if images != 0:
        budgeted, notes = apply_image_budget(request, config.image_budget)
    body = request_body(budgeted, config)
    return Prepared(encode_body(body), tuple(notes), tuple(body))


def prepared(body: Prepared | Request, config: OpenAIModelConfig) -> Prepared:
    """`body` itself when it was encoded ahead, else the request encoded now."""
    return body if isinstance(body, Prepared) else encode(body, config)


async def prepare(request: Request, config: OpenAIModelConfig) -> Prepared:
    """`encode` on a worker thread, for a request that carries images."""
    return await asyncio.to_thread(encode, request, config)


def text_bodies(
    requests: Sequence[Request], images: Sequence[int], config: OpenAIModelConfig
) -> list[Prepared | None]:
    """The bodies of the requests without images (`images`: how many each carries), encoded
    in one pass before any is sent (None for the others, and for one that cannot be encoded:
    its send says why).

    Encoded one by one as each request got its slot, a body cost 0.07 ms of CPU one request
    at a time (caches gone cold during the server's wait); in one pass it costs a tenth of
    that. Text bodies are small (a few KB), so holding them all is cheap.
    """
    bodies: list[Prepared | None] = []
    for request, carried in zip(requests, images, strict=True):
        try:
            bodies.append(None if carried else encode(request, config, 0))
        except Exception:  # noqa: BLE001 - encoded again in its own send, which reports it
            bodies.append(None)
    return bodies
