"""The pictures and clips of the shipped MEGA-Bench sample, drawn here (Pillow, OpenCV) so the
sample is ours to ship; each returns the path a row names it by (`./` + its relative path)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw


def card(text: str, colour: tuple[int, int, int], size: tuple[int, int] = (96, 64)) -> Image.Image:
    image = Image.new("RGB", size, (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((4, 4, size[0] - 5, size[1] - 5), outline=colour, width=3)
    draw.text((12, size[1] // 2 - 6), text, fill=colour)
    return image


def save(root: Path, rel: str, image: Image.Image) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return "./" + rel


def write_clip(root: Path, rel: str, direction: str, *, fps: int, n_frames: int) -> str:
    """A 96x64 clip of a dot moving in `direction`, written with OpenCV's MPEG-4 encoder (the
    same bytes on every run of the same OpenCV build)."""
    import cv2
    import numpy as np

    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    size = (96, 64)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV cannot write {path}")
    for f in range(n_frames):
        t = f / max(n_frames - 1, 1)
        x, y = {
            "left": (88 - 80 * t, 32),
            "right": (8 + 80 * t, 32),
            "up": (48, 56 - 48 * t),
            "down": (48, 8 + 48 * t),
        }[direction]
        frame = card(f"{f}", (60, 60, 60), size)
        ImageDraw.Draw(frame).ellipse((x - 6, y - 6, x + 6, y + 6), fill=(220, 40, 40))
        writer.write(np.asarray(frame)[:, :, ::-1].copy())
    writer.release()
    return "./" + rel
