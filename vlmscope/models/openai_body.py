"""A request body as the bytes sent, with its images' base64 spliced in rather than escaped.

`json.dumps` scans every character of a string for escapes, and then the text is encoded to
UTF-8 again: for a data URL of a 400 KB image that is 4 ms of CPU per request, four times
the base64 encoding itself, paid on every request that carries an image. A base64 data URL
holds nothing JSON escapes, so each long one is left out of the dump (a placeholder stands in
its place) and its ASCII bytes are joined in afterwards. The bytes are exactly those of
`json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()`.
"""

from __future__ import annotations

import json
import secrets
import string
from typing import Any

_SPLICE_FROM = 4096  # shorter strings cost little to escape: not worth a placeholder
# what a base64 data URL is made of, none of which JSON escapes
_URL_BYTES = (string.ascii_letters + string.digits + "+/=:;,._-").encode("ascii")
# what stands in a long data URL's place in the dump: random, so that no text of a body holds
# it, and drawn once (a draw per body was a system call per request); it is never sent
_TOKEN = f"vlmscope-image-{secrets.token_hex(8)}-"


def encode_body(body: dict[str, Any]) -> bytes:
    """`body` as compact UTF-8 JSON; image data URLs are copied, not escaped."""
    urls: list[bytes] = []
    token = _TOKEN
    swapped = _swap_urls(body, token, urls)
    text = json.dumps(swapped, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if not urls:
        return text
    pieces = []
    rest = text
    for index, url in enumerate(urls):
        before, found, rest = rest.partition(f'"{token}{index}"'.encode("ascii"))
        if not found:  # cannot happen: each placeholder is dumped once, in order
            raise AssertionError(f"placeholder {index} missing from the dumped body")
        pieces += [before, b'"', url, b'"']
    pieces.append(rest)
    return b"".join(pieces)


def _swap_urls(body: dict[str, Any], token: str, urls: list[bytes]) -> dict[str, Any]:
    """A copy of `body` whose messages' long data URLs are placeholders (kept in `urls`)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return body
    swapped_messages = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            swapped_messages.append(message)
            continue
        parts = []
        for part in content:
            image = part.get("image_url") if isinstance(part, dict) else None
            url = image.get("url") if isinstance(image, dict) else None
            spliced = _splicable(url) if isinstance(url, str) else None
            if spliced is not None and isinstance(image, dict):
                parts.append({**part, "image_url": {**image, "url": f"{token}{len(urls)}"}})
                urls.append(spliced)
            else:
                parts.append(part)
        swapped_messages.append({**message, "content": parts})
    return {**body, "messages": swapped_messages}


def _splicable(url: str) -> bytes | None:
    """The URL's bytes when it is long and JSON would write it unchanged (base64's alphabet
    and a data URL's punctuation only; `isprintable` would take seven times as long)."""
    if len(url) < _SPLICE_FROM or not url.startswith("data:") or not url.isascii():
        return None
    raw = url.encode("ascii")
    return None if raw.translate(None, _URL_BYTES) else raw
