"""Translate a request into an OpenAI chat-completions body, and the reply back.

The body carries only `model`, `messages`, `max_tokens` and `temperature`: servers differ in
which optional fields they accept (`transformers serve` rejects `n`, `logprobs`, `user`,
`response_format`, ...), and these four are understood by all of them. A model config that
asks for more (a reasoning API's fields, sampling options) gets them from `openai_request`. Images become base64
data URLs whose MIME type is read from the bytes, never from a file name, unless the part declares
one (`ImagePart.mime`, for a reference that labels its images its own way).
"""

from __future__ import annotations

import base64
import io
import json
from dataclasses import dataclass
from typing import Any

import orjson

from vlmscope.messages import (
    ImagePart,
    Request,
    TextPart,
    Turn,
    Usage,
    effective_max_new_tokens,
)
from vlmscope.models.fitted_images import data_url

# Where servers put a reasoning trace they parsed out of the text (vLLM, SGLang, DeepSeek, ...)
_REASONING_FIELDS = ("reasoning_content", "reasoning")
# Formats every OpenAI-compatible server is expected to accept as-is; others are re-encoded.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


class BadBody(ValueError):
    """A 2xx reply that is not a chat completion with text (garbled JSON, no choices, ...)."""


def chat_body(request: Request, model: str, max_new_tokens: int | None) -> dict[str, Any]:
    """The JSON body for `request`; `max_new_tokens` caps the request's own limit."""
    messages: list[dict[str, Any]] = []
    if request.system is not None:
        system: str | list[dict[str, Any]] = request.system
        if request.system_parts:
            system = [{"type": "text", "text": request.system}]
        messages.append({"role": "system", "content": system})
    image_number = 0
    for turn in request.turns:
        content, image_number = _content(turn, image_number)
        messages.append({"role": turn.role, "content": content})
    return {
        "model": model,
        "messages": messages,
        "max_tokens": effective_max_new_tokens(request.params.max_new_tokens, max_new_tokens),
        "temperature": request.params.temperature,
    }


def image_mime(data: bytes) -> str | None:
    """The MIME type of PNG, JPEG, GIF or WebP bytes; None for anything else."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_data_url(data: bytes, number: int = 1) -> str:
    """A data URL for encoded image bytes; other formats (BMP, TIFF, ...) are sent as PNG.

    Raises ValueError naming image `number` if the bytes are not an image at all.
    """
    mime = image_mime(data)
    if mime is None:
        data, mime = _as_png(data, number), "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


@dataclass(frozen=True)
class Completion:
    """What a chat-completion body says: the text, a reasoning trace the server returned in a
    field of its own (`reasoning_content`, or `reasoning` as newer vLLM and OpenRouter name
    it), the usage, and whether the token limit ended it (`finish_reason: length`)."""

    text: str
    reasoning: str = ""
    usage: Usage = Usage()
    ended_by_limit: bool = False


def parse_completion(content: bytes) -> tuple[str, Usage]:
    """The answer text and token usage of a chat-completion body; BadBody if there is none."""
    completion = parse_reply(content)
    return completion.text, completion.usage


def parse_reply(content: bytes) -> Completion:
    """A chat-completion body read whole; BadBody if it holds no text. A reply that spent its
    whole limit thinking may have no content (null) beside its trace: its text is empty."""
    try:
        body = orjson.loads(content)  # a fraction of `json.loads`'s CPU, as for bodies sent
    except orjson.JSONDecodeError:
        body = _standard_json(content)  # NaN and the like, which orjson refuses
    try:
        choice = body["choices"][0]
        message = choice["message"]
        text = message["content"]
    except (KeyError, IndexError, TypeError) as err:
        raise BadBody("reply has no choices[0].message.content") from err
    reasoning = next(
        (value for name in _REASONING_FIELDS if isinstance(value := message.get(name), str)), ""
    )
    usage = _usage(body.get("usage"))
    if text is None and (reasoning or usage.reasoning_tokens):
        text = ""
    if not isinstance(text, str):
        raise BadBody(f"choices[0].message.content is {type(text).__name__}, not text")
    ended = isinstance(choice, dict) and choice.get("finish_reason") == "length"
    return Completion(text, reasoning, usage, ended)


def _content(turn: Turn, image_number: int) -> tuple[str | list[dict[str, Any]], int]:
    """A lone text part as a plain string (what every server reads); otherwise a part list."""
    only = turn.parts[0] if len(turn.parts) == 1 else None
    if isinstance(only, TextPart):
        return only.text, image_number
    items: list[dict[str, Any]] = []
    for part in turn.parts:
        if isinstance(part, ImagePart):
            image_number += 1
            items.append(_image_item(part, image_number))
        else:
            items.append({"type": "text", "text": part.text})
    return items, image_number


def _image_item(part: ImagePart, number: int) -> dict[str, Any]:
    """A fitted image's data URL is made once and kept beside it (`fitted_images.data_url`):
    a judge sends a question's image with every answer it judges. A part that declares its MIME
    type is sent under that type, its bytes unchanged (a reference's own label, e.g. FastChat's
    `image/jpeg` for a PNG)."""
    if part.mime is not None:
        url = f"data:{part.mime};base64,{base64.b64encode(part.data).decode('ascii')}"
    else:
        url = data_url(part, lambda data: image_data_url(data, number))
    return {"type": "image_url", "image_url": {"url": url}}


def _as_png(data: bytes, number: int) -> bytes:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
    except (OSError, ValueError) as err:
        raise ValueError(f"image {number} is not a readable image: {err}") from err
    return buffer.getvalue()


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return Usage(
        prompt_tokens=_count(raw.get("prompt_tokens")),
        completion_tokens=_count(raw.get("completion_tokens")),
        reasoning_tokens=_count(reasoning),
    )


def _standard_json(content: bytes) -> Any:
    """What the standard module reads from a body orjson refused (NaN, Infinity), or BadBody
    naming the first bad byte."""
    try:
        return json.loads(content)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BadBody(f"reply is not JSON ({err.__class__.__name__} at byte {_pos(err)})") from err


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _pos(err: ValueError) -> int:
    return getattr(err, "pos", getattr(err, "start", 0))
