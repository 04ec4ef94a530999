"""Length-prefixed JSON frames between the parent and a sandbox worker.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. Raw file
descriptors are used on both sides so no Python-level buffer can hold back half a frame.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

_HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 1 << 30


def encode_frame(message: dict[str, Any]) -> bytes:
    payload = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(payload) > MAX_FRAME_BYTES:
        raise ValueError(f"frame of {len(payload)} bytes is over the {MAX_FRAME_BYTES} limit")
    return _HEADER.pack(len(payload)) + payload


def write_frame(fd: int, message: dict[str, Any]) -> None:
    data = memoryview(encode_frame(message))
    while data:
        written = os.write(fd, data)
        data = data[written:]


def read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from `fd`, or None when the stream ends first."""
    chunks: list[bytes] = []
    missing = size
    while missing:
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> dict[str, Any] | None:
    """The next message, or None when the other side has closed the stream."""
    header = read_exactly(fd, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"frame of {size} bytes is over the {MAX_FRAME_BYTES} limit")
    payload = read_exactly(fd, size)
    if payload is None:
        return None
    message = json.loads(payload.decode("utf-8", "surrogatepass"))
    if not isinstance(message, dict):
        raise ValueError("a frame must hold a JSON object")
    return message
