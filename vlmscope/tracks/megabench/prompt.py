"""MEGA-Bench prompts as the official query side builds them (paper App. D.1-D.2).

One user turn: the task description, the one-shot demonstration and the query, each split at
its `<image>`/`<video>` placeholders with the media put in their place; text chunks stripped,
empty ones dropped; no system message; temperature 0. The chain-of-thought instruction is part
of the dataset's demonstration text, so nothing is added here (the no-CoT setting of the paper's
Table 2 is a rewrite of that text, see `strip_cot`).

Image budget per model: at most `max_images` images per query, of which demonstrations may use
`in_context_images` (MEGA-Bench's `total_demo_video_frames`); video frames are sampled to fit;
a query that still exceeds the budget is not answerable and gets the official skip text.
Video files are decoded and sampled as the official code does (`video.py`); each kept frame then
takes the image path (`media.py`, which also keeps the bytes out of memory until they are sent).
Images are flattened on white and capped at `max_side` on the longer side. A media path is opened
only once it resolves inside `data_dir` (`vlmscope.tracks.media_paths`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from PIL import UnidentifiedImageError

from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, Part, Request, TextPart, Turn
from vlmscope.tracks.media_paths import inside_data_dir
from vlmscope.tracks.megabench.media import image_part, video_parts
from vlmscope.tracks.megabench.rows import QueryRow, RowError
from vlmscope.tracks.megabench.video import (
    VIDEO_SUFFIXES,
    VideoHeader,
    VideoSampling,
    sampling_gap,
)

PLACEHOLDER = re.compile(r"(<image>|<video>)")
SKIP_TEXT = "Exceed the specified max number of images, skip..."
VIDEO_START, VIDEO_END = "<video frames start>", "<video frames end>"
_COT_SENTENCE = re.compile(r"\s*Think step by step before answering\.?")
_REASONING_LINE = "[PLEASE OUTPUT YOUR REASONING]\n"


@dataclass(frozen=True)
class BuiltPrompt:
    request: Request
    over_budget: bool
    notes: tuple[str, ...]


def is_video(path: Path) -> bool:
    """A video is a video file or, in vlmscope samples, a folder of frames."""
    return path.suffix.lower() in VIDEO_SUFFIXES or path.is_dir()


def strip_cot(example_text: str) -> str:
    """The no-CoT setting: drop the reasoning placeholder and the step-by-step sentence."""
    return _COT_SENTENCE.sub("", example_text.replace(_REASONING_LINE, ""))


def build_prompt(
    row: QueryRow,
    data_dir: Path,
    budget: ImageBudget,
    *,
    params: GenerationParams,
    cot: bool = True,
    video_sampling: VideoSampling = "fps",
) -> BuiltPrompt:
    def resolve(paths: tuple[str, ...], field: str) -> list[Path]:
        return [
            inside_data_dir(data_dir, p, row=row.where, field=field, error=RowError) for p in paths
        ]

    global_media = resolve(row.global_media, "global_media")
    example_media = resolve(row.example_media, "example_media")
    own_query_media = resolve(row.query_media, "query_media")
    query_media = global_media + own_query_media

    demo_images = [p for p in example_media if not is_video(p)]
    demo_videos = [p for p in example_media if is_video(p)]
    query_images = [p for p in query_media if not is_video(p)]
    query_videos = [p for p in query_media if is_video(p)]
    kept_demo_images = demo_images[: budget.in_context_images]
    demo_frames = math.ceil(budget.in_context_images / len(demo_videos)) if demo_videos else 0
    query_frames = 0
    if query_videos:
        spare = (
            budget.max_images
            - len(kept_demo_images)
            - len(query_images)
            - demo_frames * len(demo_videos)
        )
        query_frames = spare // len(query_videos)
    total = len(kept_demo_images) + len(query_images) + demo_frames * len(demo_videos)
    total += query_frames * len(query_videos)
    notes = [f"skipped demo image {p.name}" for p in demo_images[len(kept_demo_images) :]]
    if total > budget.max_images or (query_videos and query_frames <= 0):
        notes.append(f"needs more than {budget.max_images} images: not sent (official skip text)")
        request = Request(turns=(Turn("user", (TextPart(SKIP_TEXT),)),), params=params)
        return BuiltPrompt(request, over_budget=True, notes=tuple(notes))

    def media_parts(path: Path, *, demo: bool) -> list[Part]:
        if not is_video(path):
            if demo and path not in kept_demo_images:
                return []
            return [image_part(path, budget.max_side)]
        frames = demo_frames if demo else query_frames
        parts: list[Part] = [TextPart(VIDEO_START)]
        if path.is_dir():
            parts += [
                image_part(f, budget.max_side)
                for f in sample_frames(path, frames, demo_frames, demo=demo, mode=video_sampling)
            ]
        else:
            kept, sampled = video_parts(
                path,
                frames,
                demo=demo,
                demo_frames=demo_frames,
                mode=video_sampling,
                max_side=budget.max_side,
            )
            if sampled.decoded < sampled.announced:
                notes.append(
                    f"video {path.name}: {sampled.decoded} of the {sampled.announced} "
                    "frames its header announces decode"
                )
            parts += kept
        return [*parts, TextPart(VIDEO_END)]

    example_text = row.example_text if cot else strip_cot(row.example_text)
    parts: list[Part] = []
    for field_name, media_field, text, media, demo in (
        ("task_description", "global_media", row.task_description, global_media, False),
        ("example_text", "example_media", example_text, example_media, True),
        ("query_text", "query_media", row.query_text, own_query_media, False),
    ):
        chunks = PLACEHOLDER.split(text)
        n_slots = sum(1 for c in chunks if PLACEHOLDER.fullmatch(c))
        if n_slots != len(media):
            raise RowError(
                f"task {row.task_name!r}, row {row.id}: field {field_name!r} has {n_slots} placeholders "
                f"for {len(media)} media"
            )
        slot = iter(media)
        for chunk in chunks:
            if PLACEHOLDER.fullmatch(chunk):
                path = next(slot)
                try:
                    parts += media_parts(path, demo=demo)
                except (OSError, UnidentifiedImageError) as err:
                    raise RowError(
                        f"{row.where}: field {media_field!r}: media {path} cannot be read ({err})"
                    ) from err
            elif chunk.strip():
                parts.append(TextPart(chunk.strip()))
    request = Request(turns=(Turn("user", tuple(parts)),), params=params)
    return BuiltPrompt(request, over_budget=False, notes=tuple(notes))


def frame_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise OSError(
            f"video {folder.name}: only folders of frames are supported (no video decoder)"
        )
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in {".png", ".jpg", ".jpeg"})


def sample_frames(
    folder: Path, num_frames: int, demo_frames: int, *, demo: bool, mode: VideoSampling
) -> list[Path]:
    """Official frame sampling (`video.sampling_gap`), a frames folder read as a 1 fps video:
    keep every frame whose index % gap == 0."""
    frames = frame_files(folder)
    header = VideoHeader(frame_count=len(frames), fps=1.0)
    gap = sampling_gap(header, num_frames, demo=demo, demo_frames=demo_frames, mode=mode)
    return [f for i, f in enumerate(frames) if i % gap == 0]
