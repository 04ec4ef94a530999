"""The prompt of a browsed sample: rebuilt from the benchmark data when the Space has it.

Result datasets store no prompts or images (they are the benchmark's data: large, and licensed
on their own). A details row keeps what identifies its data row (MEGA-Bench: task name, row id,
CoT setting; SimpleVQA: data id, language and the question asked), so when the Space can read
the track's data (`VLMSCOPE_MEGABENCH_DATA` / `VLMSCOPE_SIMPLEVQA_DATA`, else the sample shipped
in a repository checkout) the request is rebuilt with the track's own prompt builder: the same
text and images in the same order (MEGA-Bench with a budget large enough to show every image).
Otherwise the browser shows the question kept in the metadata, if any, and says so.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, ImagePart, Request, TextPart

DATA_ENV = {"megabench": "VLMSCOPE_MEGABENCH_DATA", "simplevqa": "VLMSCOPE_SIMPLEVQA_DATA"}
DISPLAY_BUDGET = ImageBudget(max_images=64, max_side=768, in_context_images=16)


@dataclass(frozen=True)
class PromptView:
    """Prompt text with `<image k: name>` where image k sits, the images, and where it came from."""

    text: str
    note: str
    images: list[tuple[bytes, str]] = field(default_factory=list)

    def pil_images(self) -> list[tuple[Image.Image, str]]:
        return [(Image.open(io.BytesIO(data)), caption) for data, caption in self.images]


def prompt_data_dirs(env: Mapping[str, str]) -> dict[str, Path]:
    """Each track's configured data folder, else its shipped sample when run from a checkout."""
    from vlmscope.tracks.samples import sample_dir

    dirs = {}
    for track, variable in DATA_ENV.items():
        if env.get(variable):
            dirs[track] = Path(env[variable])
            continue
        try:
            dirs[track] = sample_dir(track)
        except FileNotFoundError:
            continue
    return dirs


def prompt_view(track: str, meta: Mapping[str, Any], data_dirs: Mapping[str, Path]) -> PromptView:
    rebuild = REBUILDERS.get(track)
    if rebuild is not None and track in data_dirs:
        data_dir = data_dirs[track]
        try:
            request = rebuild(meta, data_dir.resolve())
        except (ValueError, OSError, KeyError) as err:
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


def megabench_request(meta: Mapping[str, Any], data_dir: Path) -> Request | None:
    from vlmscope.tracks.megabench.prompt import build_prompt

    row = _megabench_rows(data_dir).get((str(meta.get("task_name")), str(meta.get("row_id"))))
    if row is None:
        return None
    cot = bool(meta.get("cot", True))
    params = GenerationParams()
    built = build_prompt(row, data_dir, DISPLAY_BUDGET, params=params, oracle_answer=None, cot=cot)
    return built.request


def simplevqa_request(meta: Mapping[str, Any], data_dir: Path) -> Request | None:
    from vlmscope.tracks.simplevqa.prompts import question_request

    row = _simplevqa_rows(data_dir).get(str(meta.get("data_id")))
    question = meta.get("question")
    if row is None or not isinstance(question, str):
        return None
    return question_request(row.image, row.image_name, row.language, question, "")


# Track code is imported on first use (as the track registry does), so the Space starts without
# loading any track and a track's data is read only when one of its samples is browsed.
REBUILDERS: dict[str, Callable[[Mapping[str, Any], Path], Request | None]] = {
    "megabench": megabench_request,
    "simplevqa": simplevqa_request,
}


@lru_cache(maxsize=2)
def _megabench_rows(data_dir: Path) -> dict[tuple[str, str], Any]:
    from vlmscope.tracks.megabench.rows import CONFIGS, read_rows

    index: dict[tuple[str, str], Any] = {}
    for config in CONFIGS:
        try:
            rows = read_rows(data_dir, config)
        except FileNotFoundError:
            continue
        for row in rows:
            index.setdefault((row.task_name, row.id), row)
    return index


@lru_cache(maxsize=2)
def _simplevqa_rows(data_dir: Path) -> dict[str, Any]:
    from vlmscope.tracks.simplevqa.rows import read_rows

    return {str(row.data_id): row for row in read_rows(data_dir)}
