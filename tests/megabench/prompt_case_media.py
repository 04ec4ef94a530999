"""Media for the official prompt cases (`official_prompt_cases.jsonl`), made from their recipes.

A case names its files by recipe, not by bytes, so the file stays small and readable: an image
is a seeded random picture of a mode and size saved under a name (the name's extension is what
the official encoder reads), optionally cut short; a video is written with OpenCV like the video
tests write theirs. The same recipes made the files the official code was run on.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from tests.megabench.test_video import write_video


def make_image(spec: dict[str, Any]) -> Image.Image:
    """A seeded picture in `spec["mode"]` of `spec["size"]`, with a transparent palette index
    when `spec["transparency"]` is set."""
    width, height = spec["size"]
    pixels = np.random.RandomState(spec.get("seed", 0)).randint(
        0, 256, (height, width, 4), dtype=np.uint8
    )
    rgba = Image.fromarray(pixels, "RGBA")
    mode = spec["mode"]
    if mode == "RGBA":
        return rgba
    if mode == "I;16":
        return Image.fromarray(pixels[..., 0].astype(np.uint16) * 257, "I;16")
    if mode in ("I", "F"):
        return rgba.convert("L").convert(mode)
    image = rgba.convert(mode) if mode in ("LA", "La", "RGBa") else rgba.convert("RGB")
    if mode not in ("LA", "La", "RGBa", "RGB"):
        image = image.convert(mode)
    if "transparency" in spec:
        image.info["transparency"] = spec["transparency"]
    return image


def write_media(folder: Path, media: dict[str, dict[str, Any]]) -> None:
    """Write every file a case names into `folder`."""
    for name, spec in media.items():
        path = folder / name
        if spec["kind"] == "video":
            write_video(path, spec["fourcc"], spec["fps"], spec["frames"], tuple(spec["size"]))
            continue
        buffer = io.BytesIO()
        make_image(spec).save(buffer, format=spec["format"])
        data = buffer.getvalue()
        if "truncate_to" in spec:
            data = data[: int(len(data) * spec["truncate_to"])]
        path.write_bytes(data)
