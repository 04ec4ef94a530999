"""MEGA-Bench prompts as the official query side builds them (paper App. D.1-D.2).

One user turn: the task description, the one-shot demonstration and the query, each split at
its `<image>`/`<video>` placeholders with the media put in their place; text chunks stripped,
empty ones dropped; no system message; temperature 0. The chain-of-thought instruction is part
of the dataset's demonstration text, so nothing is added here (the no-CoT setting of the paper's
Table 2 is a rewrite of that text, see `strip_cot`).

Image budget per model: at most `max_images` images per query, of which demonstrations may use
`in_context_images` (MEGA-Bench's `total_demo_video_frames`): the first that many demonstration
image placeholders are filled, by position (a repeated file counts each time). Video frames are
sampled to fit (`frame_shares`); a query that still exceeds the budget is not answerable and gets
the official skip text. The official code builds the task description and demonstration once
per task, with the frame shares of the task's first query, so the task description's videos
are sampled with the first query's share (`first_row`) whatever the query.
Video files are decoded and sampled as the official code does (`video.py`); each kept frame then
takes the image path (`media.py`, which also keeps the bytes out of memory until they are sent).
RGBA images are flattened on white and images capped at `max_side` on the longer side
(`media.py`). A media path is opened only once it resolves inside `data_dir`
(`vlmscope.tracks.media_paths`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import UnidentifiedImageError

from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, Part, Request, TextPart, Turn
from vlmscope.tracks.media_paths import inside_data_dir
from vlmscope.tracks.megabench.media import image_part, video_parts
from vlmscope.tracks.megabench.rows import FRAME_SUFFIXES, QueryRow, RowError
from vlmscope.tracks.megabench.video import (
    VideoHeader,
    VideoSampling,
    is_video_file,
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
    return is_video_file(path) or path.is_dir()


@dataclass(frozen=True)
class FrameShares:
    """The official `_set_sampling_config` for one query: frames per demonstration video,
    frames per query video (task description videos count as the query's), what the query's
    videos have between them (`spare`; the official code fails when it is not positive), and
    the images the query would send."""

    demo_frames: int
    query_frames: int
    spare: int
    total: int


def frame_shares(
    budget: ImageBudget, example_media: Sequence[Path], query_media: Sequence[Path]
) -> FrameShares:
    demo_videos = sum(1 for p in example_media if is_video(p))
    demo_images = min(budget.in_context_images, len(example_media) - demo_videos)
    query_videos = sum(1 for p in query_media if is_video(p))
    query_images = len(query_media) - query_videos
    demo_frames = math.ceil(budget.in_context_images / demo_videos) if demo_videos else 0
    spare = budget.max_images - demo_images - query_images - demo_frames * demo_videos
    query_frames = spare // query_videos if query_videos else 0
    total = query_frames * query_videos + demo_frames * demo_videos + query_images + demo_images
    return FrameShares(demo_frames, query_frames, spare, total)


def strip_cot(example_text: str) -> str:
    """The no-CoT setting: drop the reasoning placeholder and the step-by-step sentence."""
    return _COT_SENTENCE.sub("", example_text.replace(_REASONING_LINE, ""))


@dataclass(frozen=True)
class _Field:
    """One text field of the row, split at its placeholders, with the media that fill them in
    order and the frames each of its videos gets."""

    name: str  # the row's text field, as an error names it
    media_field: str  # the row's media field whose files fill the placeholders
    chunks: list[str]  # `PLACEHOLDER.split` of the text: text and placeholder chunks in turn
    media: list[Path]
    frames: int  # frames sampled from each of its videos
    demo: bool  # the demonstration: its images count against `in_context_images`


def build_prompt(
    row: QueryRow,
    data_dir: Path,
    budget: ImageBudget,
    *,
    params: GenerationParams,
    cot: bool = True,
    video_sampling: VideoSampling = "fps",
    first_row: QueryRow | None = None,
) -> BuiltPrompt:
    """`first_row` is the first query of the row's task (the row itself when None): its frame
    shares sample the task description's videos, as the official code samples them once per
    task."""

    def resolve(paths: tuple[str, ...], field: str) -> list[Path]:
        return [
            inside_data_dir(data_dir, p, row=row.where, field=field, error=RowError) for p in paths
        ]

    global_media = resolve(row.global_media, "global_media")
    example_media = resolve(row.example_media, "example_media")
    own_query_media = resolve(row.query_media, "query_media")
    query_media = global_media + own_query_media
    shares = frame_shares(budget, example_media, query_media)
    description_frames = shares.query_frames  # the official code: the first query's share
    if first_row is not None and first_row is not row and any(map(is_video, global_media)):
        first_media = global_media + resolve(first_row.query_media, "query_media")
        first = frame_shares(budget, example_media, first_media)
        if first.spare > 0:  # otherwise the official code fails on the whole task
            description_frames = first.query_frames
    example_text = row.example_text if cot else strip_cot(row.example_text)
    fields = [
        _Field(
            "task_description",
            "global_media",
            PLACEHOLDER.split(row.task_description),
            global_media,
            frames=description_frames,
            demo=False,
        ),
        _Field(
            "example_text",
            "example_media",
            PLACEHOLDER.split(example_text),
            example_media,
            frames=shares.demo_frames,
            demo=True,
        ),
        _Field(
            "query_text",
            "query_media",
            PLACEHOLDER.split(row.query_text),
            own_query_media,
            frames=shares.query_frames,
            demo=False,
        ),
    ]
    # before the budget: the official code fails on a mismatch even in a skipped query
    for field in fields:
        _check_slots(row, field)
    demo_images = [p for p in example_media if not is_video(p)]
    notes = [f"skipped demo image {p.name}" for p in demo_images[budget.in_context_images :]]
    has_query_videos = any(is_video(p) for p in query_media)
    if shares.total > budget.max_images or (has_query_videos and shares.spare <= 0):
        notes.append(f"needs more than {budget.max_images} images: not sent (official skip text)")
        request = Request(turns=(Turn("user", (TextPart(SKIP_TEXT),)),), params=params)
        return BuiltPrompt(request, over_budget=True, notes=tuple(notes))

    demo_images_sent = 0

    def media_parts(path: Path, field: _Field) -> list[Part]:
        nonlocal demo_images_sent
        if not is_video(path):
            if field.demo:
                if demo_images_sent >= budget.in_context_images:
                    return []
                demo_images_sent += 1
            return [image_part(path, budget.max_side)]
        return _video_parts(path, field, shares.demo_frames, budget, video_sampling, notes)

    parts: list[Part] = []
    for field in fields:
        slot = iter(field.media)
        for chunk in field.chunks:
            if PLACEHOLDER.fullmatch(chunk):
                path = next(slot)
                try:
                    parts += media_parts(path, field)
                except (OSError, UnidentifiedImageError, ValueError) as err:
                    raise RowError(
                        f"{row.where}: field {field.media_field!r}: media {path} cannot be read "
                        f"({err})"
                    ) from err
            elif chunk.strip():
                parts.append(TextPart(chunk.strip()))
    request = Request(turns=(Turn("user", tuple(parts)),), params=params)
    return BuiltPrompt(request, over_budget=False, notes=tuple(notes))


def _check_slots(row: QueryRow, field: _Field) -> None:
    """A field must have one placeholder per file of its media field."""
    n_slots = sum(1 for c in field.chunks if PLACEHOLDER.fullmatch(c))
    if n_slots != len(field.media):
        raise RowError(
            f"task {row.task_name!r}, row {row.id}: field {field.name!r} has {n_slots} placeholders "
            f"for {len(field.media)} media"
        )


def _video_parts(
    path: Path,
    field: _Field,
    demo_frames: int,
    budget: ImageBudget,
    mode: VideoSampling,
    notes: list[str],
) -> list[Part]:
    """A video's sampled frames between the official start and end markers; a file whose
    frames decode short of what its header announces adds a note."""
    parts: list[Part] = [TextPart(VIDEO_START)]
    if path.is_dir():
        parts += [
            image_part(f, budget.max_side)
            for f in sample_frames(path, field.frames, demo_frames, demo=field.demo, mode=mode)
        ]
    else:
        kept, sampled = video_parts(
            path,
            field.frames,
            demo=field.demo,
            demo_frames=demo_frames,
            mode=mode,
            max_side=budget.max_side,
        )
        if sampled.decoded < sampled.announced:
            notes.append(
                f"video {path.name}: {sampled.decoded} of the {sampled.announced} "
                "frames its header announces decode"
            )
        parts += kept
    return [*parts, TextPart(VIDEO_END)]


def frame_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise OSError(
            f"video {folder.name}: only folders of frames are supported (no video decoder)"
        )
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in FRAME_SUFFIXES)


def sample_frames(
    folder: Path, num_frames: int, demo_frames: int, *, demo: bool, mode: VideoSampling
) -> list[Path]:
    """Official frame sampling (`video.sampling_gap`), a frames folder read as a 1 fps video:
    keep every frame whose index % gap == 0."""
    frames = frame_files(folder)
    header = VideoHeader(frame_count=len(frames), fps=1.0)
    gap = sampling_gap(header, num_frames, demo=demo, demo_frames=demo_frames, mode=mode)
    return [f for i, f in enumerate(frames) if i % gap == 0]
