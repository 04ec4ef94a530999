"""Fit a request's images into a model's image budget, and say what was changed.

MEGA-Bench gives every model a maximum number of images and caps the longer side at 1000 px
(paper App. D.2). Requests over the count keep their LAST images, because a query's own media
come after its in-context demonstrations; the earliest are the cheapest to lose. Every drop and
resize becomes a note on the response, so a score can be traced to what the model really saw.

These functions are pure: the request is frozen and a new one is returned. An image that is not
resized keeps its exact bytes (no re-encoding), so its content hash does not move.
"""

from __future__ import annotations

import io

from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import ImagePart, Part, Request, Turn
from vlmscope.models import fitted_images
from vlmscope.models.fitted_images import Fitted, fitted_part


def apply_image_budget(request: Request, budget: ImageBudget) -> tuple[Request, list[str]]:
    """Keep at most `budget.max_images` images (the last ones) no longer than `budget.max_side`."""
    return limit_images(request, budget.max_images, budget.max_side)


def limit_images(request: Request, max_images: int, max_side: int) -> tuple[Request, list[str]]:
    """Like `apply_image_budget`, but `max_images` may be 0 (a context-overflow retry needs it).

    Notes number images from 1 in the ORIGINAL request, so notes from a retry with fewer images
    name the same images as the first attempt's notes.
    """
    if max_images < 0 or max_side <= 0:
        raise ValueError(f"bad image limits: max_images={max_images}, max_side={max_side}")
    total = len(request.images)
    first_kept = max(0, total - max_images)
    notes = [f"dropped image {n} of {total}" for n in range(1, first_kept + 1)]
    number = 0
    turns: list[Turn] = []
    for turn in request.turns:
        parts: list[Part] = []
        for part in turn.parts:
            if not isinstance(part, ImagePart):
                parts.append(part)
                continue
            number += 1
            if number <= first_kept:
                continue
            resized, note = _fit_side(part, max_side, number)
            parts.append(resized)
            if note:
                notes.append(note)
        turns.append(Turn(turn.role, tuple(parts)))
    if not notes:
        return request, []
    return request.with_turns(tuple(turns)), notes


def _fit_side(image: ImagePart, max_side: int, number: int) -> tuple[ImagePart, str | None]:
    """Shrink an image whose longer side exceeds `max_side`, keeping aspect ratio and format.

    PNG stays PNG (lossless), JPEG stays JPEG; anything else (WebP, GIF, ...) becomes PNG, which
    every processor reads. An image fitted to this side before is taken from `FITTED`; the
    part made remembers its entry there, where its data URL is kept once it is sent.
    """
    try:
        with Image.open(io.BytesIO(image.data)) as opened:
            width, height = opened.size
            if max(width, height) <= max_side:
                return image, None
            digest = image.digest()
            fitted = fitted_images.FITTED.get_or_fit(
                digest, max_side, lambda: _resized(opened, max_side)
            )
    except (OSError, ValueError) as err:  # PIL raises OSError subclasses for unreadable data
        raise ValueError(
            f"image {number} ({image.name or 'unnamed'}) cannot be read: {err}"
        ) from err
    (width, height), (new_width, new_height) = fitted.source_size, fitted.size
    note = f"resized image {number} from {width}x{height} to {new_width}x{new_height}"
    if image.mime is not None:  # a declared type stays; its data URL is made, not the kept one
        return ImagePart(fitted.data, image.name, image.mime), note
    return fitted_part(fitted, digest, max_side, image.name), note


def _resized(opened: Image.Image, max_side: int) -> Fitted:
    source_format = opened.format
    width, height = opened.size
    scale = max_side / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    resized = opened.convert(_mode_for(opened.mode, source_format)).resize(
        size, Image.Resampling.LANCZOS
    )
    buffer = io.BytesIO()
    if source_format == "JPEG":
        resized.save(buffer, format="JPEG", quality=95)
    else:
        resized.save(buffer, format="PNG")
    return Fitted(buffer.getvalue(), (width, height), size)


def _mode_for(mode: str, source_format: str | None) -> str:
    """A pixel mode the output format can hold without surprises (palette images resize badly)."""
    if source_format == "JPEG":
        return mode if mode in ("RGB", "L", "CMYK") else "RGB"
    if mode in ("RGB", "RGBA", "L", "LA", "I", "I;16"):
        return mode
    return "RGBA" if "A" in mode or mode == "P" else "RGB"
