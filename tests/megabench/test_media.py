"""Prompt images hold a digest, not bytes, until read; the request and its cache key are the
same as with the bytes in hand."""

from __future__ import annotations

import hashlib

from vlmscope.config import ImageBudget
from vlmscope.messages import DeferredImagePart, GenerationParams, ImagePart, Request, Turn
from vlmscope.tracks.megabench.prompt import build_prompt
from vlmscope.tracks.megabench.rows import group_by_task, read_rows
from vlmscope.tracks.shipped_samples import sample_dir

SAMPLE = sample_dir("megabench")
TASKS = group_by_task(read_rows(SAMPLE, "core"))


def test_video_media_deferred_parts_keep_no_bytes_and_hash_as_their_bytes() -> None:
    for task in ("sample_min_multi_image", "sample_video_file", "sample_video_count"):
        request = build_prompt(
            TASKS[task][0], SAMPLE, ImageBudget(max_images=16), params=GenerationParams()
        ).request
        images = request.images
        assert images and all(isinstance(p, DeferredImagePart) for p in images)
        assert all("data" not in vars(p) for p in images)  # nothing held but how to make it
        for part in images:
            assert part.digest() == hashlib.sha256(part.data).hexdigest()
            assert part.data == part.data  # made again, identically
        held = Request(
            turns=tuple(
                Turn(
                    t.role,
                    tuple(
                        ImagePart(p.data, p.name) if isinstance(p, ImagePart) else p
                        for p in t.parts
                    ),
                )
                for t in request.turns
            ),
            params=request.params,
        )
        assert held.content_hash() == request.content_hash()


def test_a_changed_file_is_encoded_afresh(tmp_path) -> None:
    from PIL import Image

    from vlmscope.tracks.megabench.media import image_part

    path = tmp_path / "a.png"
    Image.new("RGB", (8, 8), (255, 0, 0)).save(path)
    first = image_part(path, 1000).digest()
    Image.new("RGB", (8, 9), (0, 0, 255)).save(path)
    second = image_part(path, 1000)
    assert second.digest() != first and second.digest() == hashlib.sha256(second.data).hexdigest()
