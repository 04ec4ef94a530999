"""Field readers shared by the three VisionArena datasets: conversations, images, categories.

Where the spec marks a shape as inferred, both shapes it names are read:
- a conversation is a list of turns, each a list of messages {role, content} (what vLLM's
  reader indexes as `conversation[0][0]["content"]`), or a flat list of messages, or a list of
  {user, assistant} pairs (a filtered derivative's shape); it reads as `Turn`s in order. A
  message's content is text or arena-hard's vision form [text, [image_hash, ...]] (text kept);
- `categories` is a struct of booleans or a comma-separated string of the flags that are true
  (`none` or empty: none is).
Roles are `user` and `assistant`; a conversation starts with the user and alternates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.tracks.hub_files import image_format
from vlmscope.tracks.visionarena.row_files import VisionArenaDataError, read_image_file

ROLES = ("user", "assistant")
#: The classifier flags of the `categories` struct (FastChat vision classifiers).
CATEGORY_FLAGS = ("captioning", "code", "creative_writing", "diagram", "entity_recognition",
                  "homework", "humor", "is_code", "ocr", "refusal")  # fmt: skip


@dataclass(frozen=True)
class Turn:
    """One message: `role` user or assistant, `text` its content (images are kept per row)."""

    role: str
    text: str


def conversation(value: Any, where: str, field: str, *, answered: bool = True) -> tuple[Turn, ...]:
    """A conversation in any accepted shape as messages; with `answered` it ends with the
    assistant (Chat, Battle), else it may end with the user (the bench's question turns)."""
    if not isinstance(value, list | tuple) or not value:
        raise VisionArenaDataError(f"{where}: field {field!r} is not a non-empty list of turns")
    messages: list[Turn] = []
    for k, turn in enumerate(value):
        place = f"{field}[{k}]"
        if isinstance(turn, list | tuple):
            messages.extend(_message(m, where, f"{place}[{j}]") for j, m in enumerate(turn))
        elif isinstance(turn, Mapping) and "role" in turn:
            messages.append(_message(turn, where, place))
        elif isinstance(turn, Mapping) and "user" in turn:
            messages.append(Turn("user", _content(turn.get("user"), where, f"{place}.user")))
            if turn.get("assistant") is not None:
                text = _content(turn["assistant"], where, f"{place}.assistant")
                messages.append(Turn("assistant", text))
        else:
            raise VisionArenaDataError(
                f"{where}: field {place!r} is not a list of messages, a {{role, content}} "
                f"message or a {{user, assistant}} pair: {str(turn)[:80]!r}"
            )
    for k, message in enumerate(messages):
        expected = ROLES[k % 2]
        if message.role != expected:
            raise VisionArenaDataError(
                f"{where}: field {field!r} message {k} is from {message.role}, expected "
                f"{expected}: turns start with the user and alternate"
            )
    if answered and messages[-1].role != "assistant":
        raise VisionArenaDataError(f"{where}: field {field!r} ends without an assistant answer")
    return tuple(messages)


def _message(value: Any, where: str, place: str) -> Turn:
    if not isinstance(value, Mapping):
        raise VisionArenaDataError(
            f"{where}: field {place!r} is {type(value).__name__}, expected {{role, content}}"
        )
    role = value.get("role")
    if role not in ROLES:
        raise VisionArenaDataError(
            f"{where}: field '{place}.role' is {role!r}, an unknown role (expected user or "
            "assistant)"
        )
    return Turn(role, _content(value.get("content"), where, f"{place}.content"))


def _content(value: Any, where: str, place: str) -> str:
    """Text, or arena-hard's [text, [image_hash, ...]] vision content (the text)."""
    if isinstance(value, list | tuple) and len(value) == 2 and isinstance(value[1], list | tuple):
        value = value[0]
    if not isinstance(value, str):
        raise VisionArenaDataError(
            f"{where}: field {place!r} is {type(value).__name__}, expected text"
        )
    return value


def category_labels(value: Any, where: str) -> dict[str, bool | None]:
    """What the row itself says of each flag, for use as reference labels: nothing when
    `categories` is absent or null; a comma-separated string names the flags that are set (the
    others are false; an empty string, or `none`, sets none); a struct gives its own flags, null
    for a flag
    left unlabelled. Nothing absent is read as false: an unlabelled flag is in no category
    board (`vlmscope.ratings.inputs.labels`)."""
    if value is None:
        return {}
    if isinstance(value, str):
        labels: dict[str, bool | None] = dict.fromkeys(CATEGORY_FLAGS, False)
        named = "" if value.strip().lower() == "none" else value
        for name in (part.strip() for part in named.split(",") if part.strip()):
            if name not in labels:
                raise VisionArenaDataError(
                    f"{where}: field 'categories' names {name!r}, not one of "
                    f"{', '.join(CATEGORY_FLAGS)}"
                )
            labels[name] = True
        return labels
    if not isinstance(value, Mapping):
        raise VisionArenaDataError(
            f"{where}: field 'categories' is {type(value).__name__}, expected a struct of "
            "booleans or a comma-separated string"
        )
    for name, flag in value.items():
        if flag is not None and not isinstance(flag, bool):
            raise VisionArenaDataError(
                f"{where}: field 'categories.{name}' is {flag!r}, expected true or false"
            )
    return {str(name): flag for name, flag in value.items()}


def images(
    value: Any, where: str, image_dirs: tuple[Path, ...], *, required: bool
) -> tuple[bytes, ...]:
    """A list of images (bytes, `Image` structs {bytes, path} or, beside a JSON file, file
    names), each checked to decode; with `required` at least one."""
    if value is None:
        value = []
    if not isinstance(value, list | tuple):
        raise VisionArenaDataError(
            f"{where}: field 'images' is {type(value).__name__}, expected a list of images"
        )
    if required and not value:
        raise VisionArenaDataError(f"{where}: field 'images' is empty; the row needs an image")
    return tuple(_image(item, where, f"images[{k}]", image_dirs) for k, item in enumerate(value))


def _image(value: Any, where: str, field: str, image_dirs: tuple[Path, ...]) -> bytes:
    name = value.get("path") if isinstance(value, Mapping) else value
    data = value.get("bytes") if isinstance(value, Mapping) else value
    if isinstance(data, bytes | bytearray | memoryview) and len(data):
        data = bytes(data)
    elif isinstance(name, str) and name.strip() and image_dirs:
        data = read_image_file(name, where, field, image_dirs)
    else:
        raise VisionArenaDataError(
            f"{where}: field {field!r} holds no image bytes"
            + (f" (only the path {name!r})" if isinstance(name, str) and name else "")
        )
    image_format(data, where, field, VisionArenaDataError)
    return data


def text(value: Any, where: str, field: str, *, required: bool = False) -> str:
    """Text; null reads as "" unless `required` (then it must be non-blank)."""
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise VisionArenaDataError(
            f"{where}: field {field!r} is missing or not text: {str(value)[:80]!r}"
        )
    return value


def flag(value: Any, where: str, field: str, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise VisionArenaDataError(f"{where}: field {field!r} is {value!r}, expected true/false")
    return value


def number(value: Any, where: str, field: str, *, default: float | None = None) -> float:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise VisionArenaDataError(f"{where}: field {field!r} is {value!r}, expected a number")
    return float(value)
