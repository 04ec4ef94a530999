"""The prompt of a browsed sample: rebuilt from the benchmark data when the Space has it.

Result datasets store no prompts or images (they are the benchmark's data: large, and licensed
on their own). A details row keeps what identifies its data row (MEGA-Bench: task name, row id,
CoT setting; SimpleVQA: data id, language and the question asked), so when the Space can read
the track's data (the folder named by the track's `data_env`, e.g. `VLMSCOPE_MEGABENCH_DATA`,
else the sample shipped in a repository checkout) the track's registered `rebuild_prompt` makes
the request again: the same text and images in the same order. Otherwise the browser shows the
question kept in the metadata, if any, and says so. Track code is imported only when one of its
samples is browsed (the rebuilders import on first use).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from vlmscope.messages import ImagePart, Request, TextPart
from vlmscope.tracks.registry import spec_for_results, track_specs
from vlmscope.tracks.shipped_samples import sample_dir


@dataclass(frozen=True)
class PromptView:
    """Prompt text with `<image k: name>` where image k sits, the images, and where it came from."""

    text: str
    note: str
    images: list[tuple[bytes, str]] = field(default_factory=list)

    def pil_images(self) -> list[tuple[Image.Image, str]]:
        return [(Image.open(io.BytesIO(data)), caption) for data, caption in self.images]


def prompt_data_dirs(env: Mapping[str, str]) -> dict[str, Path]:
    """The data folder of each track that can rebuild prompts: the one its `data_env` names,
    else its shipped sample when run from a checkout."""
    dirs = {}
    for spec in track_specs():
        if spec.rebuild_prompt is None:
            continue
        if spec.data_env and env.get(spec.data_env):
            dirs[spec.name] = Path(env[spec.data_env])
            continue
        try:
            dirs[spec.name] = sample_dir(spec.name)
        except FileNotFoundError:
            continue
    return dirs


def prompt_view(track: str, meta: Mapping[str, Any], data_dirs: Mapping[str, Path]) -> PromptView:
    spec = spec_for_results(track)
    rebuild = spec.rebuild_prompt if spec is not None else None
    if rebuild is not None and track in data_dirs:
        data_dir = data_dirs[track]
        try:
            request = rebuild(meta, data_dir.resolve())
        except (ValueError, OSError, KeyError, TypeError) as err:
            return PromptView("", f"prompt could not be rebuilt from {data_dir.name}: {err}")
        if request is not None:
            note = f"rebuilt from the {track} data in {data_dir.name}"
            if meta.get("over_budget"):
                note += "; over the model's image budget, it was sent the official skip text"
            return render(request, note)
    question = meta.get("question")
    if isinstance(question, str) and question:
        return PromptView(question, "question from the sample's metadata; images not available")
    return PromptView("", "prompt not available: result datasets do not store prompts")


def render(request: Request, note: str) -> PromptView:
    chunks: list[str] = []
    images: list[tuple[bytes, str]] = []
    for part in (p for turn in request.turns for p in turn.parts):
        if isinstance(part, TextPart):
            chunks.append(part.text)
        elif isinstance(part, ImagePart):
            images.append((part.data, f"image {len(images) + 1}: {part.name}"))
            chunks.append(f"<image {len(images)}: {part.name}>")
    return PromptView("\n".join(chunks), note, images)
