"""Video media decoded and sampled as MEGA-Bench's official query side does it.

The official evaluator (`BaseModel.process_video`) opens a video with OpenCV's
`cv2.VideoCapture`, reads `frame_count = int(CAP_PROP_FRAME_COUNT)` and `fps = CAP_PROP_FPS` from
the container, derives one sampling gap from them and the query's frame budget, then reads the
frames one by one and keeps every decoded frame whose index is a multiple of the gap. The loop
runs over the frames that actually decode, so a file whose header promises more frames than it
holds simply yields fewer; a file of which no frame decodes is an error. Each kept frame is
written as a JPEG (`cv2.imwrite` to a `.jpg`, OpenCV's default quality) and then goes through the
image path like any image file (`media.encode_frame`).

OpenCV (`opencv-python-headless`) is the decoder for parity: another decoder (PyAV, torchcodec)
may count frames and convert colours differently, which would change the kept frames. The
gap rule (`sampling_gap`) is pure and kept apart, so it can be tested against the specification
without a video.
"""

from __future__ import annotations

import math
import mimetypes
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlmscope.tracks.media_paths import inside_data_dir
from vlmscope.tracks.megabench.rows import QueryRow, RowError


def is_video_file(path: Path) -> bool:
    """What the official code treats as video: a file whose name Python's `mimetypes` guesses
    as `video/*` (`.mp4`, `.m4v`, `.MOV`, `.mkv`, ... in any case; the system's MIME table
    counts, as it does for the official code on the same machine)."""
    mime, _ = mimetypes.guess_type(str(path))
    return mime is not None and mime.startswith("video")


VideoSampling = Literal["fps", "max"]
"""The official sampling modes: "fps" (about one frame per second, the default the released
runs use) or "max" (up to five frames per second for videos of 10 fps or more)."""


class VideoError(OSError):
    """A video that cannot be used: it does not open, its header gives no frame count or rate,
    or no frame of it decodes. The message names the file."""


@dataclass(frozen=True)
class VideoHeader:
    """What the container says, as OpenCV reports it (the count truncated to an int, as the
    official code does)."""

    frame_count: int
    fps: float


@dataclass(frozen=True)
class SampledVideo:
    """The kept frames of one video: (index among the decoded frames, JPEG bytes as
    `cv2.imwrite` writes them), with the header and how many frames decoded in all."""

    header: VideoHeader
    gap: int
    decoded: int
    frames: tuple[tuple[int, bytes], ...]

    @property
    def indices(self) -> list[int]:
        return [index for index, _ in self.frames]


def sampling_gap(
    header: VideoHeader,
    num_frames: int,
    *,
    demo: bool,
    demo_frames: int,
    mode: VideoSampling = "fps",
) -> int:
    """The official sampling gap for one video.

    `num_frames` is the video's frame budget (the demo share per demo video, or the query's
    share per query video); `demo_frames` is the demo share per demo video, which the "fps"
    mode divides a demo video's length by. Where the official formula divides by zero or
    gives a gap below one (no frame count or rate in the header), the video is refused
    (`VideoError`) rather than sampled some other way.
    """
    gap_max = math.ceil(header.frame_count / num_frames) if num_frames else 1
    if mode == "max":
        gap = max(math.ceil(header.fps / 5), gap_max) if header.fps >= 10 else gap_max
    else:
        if demo and not demo_frames:
            raise VideoError("a demonstration video with no frame budget for demonstrations")
        gap_fps = math.ceil(header.frame_count / demo_frames) if demo else math.ceil(header.fps)
        gap = max(gap_fps, gap_max)
    if gap < 1:
        raise VideoError(
            f"the header gives {header.frame_count} frames at {header.fps} fps, "
            "from which no sampling gap follows"
        )
    return gap


def probe(path: Path) -> VideoHeader:
    """The header, once the file is known to open and its first frame to decode: a cheap
    check that catches a missing, truncated or foreign file before a run starts."""
    capture = _open(path)
    try:
        header = _header(capture)
        ok, _ = capture.read()
    finally:
        capture.release()
    if not ok:
        raise VideoError(f"video {path.name}: no frame decodes")
    return header


def sample_video(
    path: Path,
    num_frames: int,
    *,
    demo: bool,
    demo_frames: int,
    mode: VideoSampling = "fps",
) -> SampledVideo:
    """Decode `path` once and keep the frames the official loop keeps (see `sampling_gap`)."""
    import cv2

    capture = _open(path)
    try:
        header = _header(capture)
        try:
            gap = sampling_gap(header, num_frames, demo=demo, demo_frames=demo_frames, mode=mode)
        except VideoError as err:
            raise VideoError(f"video {path.name}: {err}") from None
        kept: list[tuple[int, bytes]] = []
        index = 0
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            if index % gap == 0:
                encoded, jpeg = cv2.imencode(".jpg", frame)
                if not encoded:
                    raise VideoError(f"video {path.name}: frame {index} does not encode as JPEG")
                kept.append((index, jpeg.tobytes()))
            index += 1
    finally:
        capture.release()
    if index == 0:
        raise VideoError(f"video {path.name}: no frame decodes")
    return SampledVideo(header, gap, index, tuple(kept))


def _open(path: Path) -> Any:
    import cv2

    if not path.is_file():
        raise VideoError(f"video {path.name}: no such file")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        capture.release()
        raise VideoError(f"video {path.name}: OpenCV cannot open it (truncated or not a video)")
    return capture


def _header(capture: Any) -> VideoHeader:
    import cv2

    return VideoHeader(int(capture.get(cv2.CAP_PROP_FRAME_COUNT)), capture.get(cv2.CAP_PROP_FPS))


def check_videos(rows: Iterable[QueryRow], data_dir: Path) -> int:
    """`probe` every video file the rows name, each once, before any prompt is built: a video
    that does not open or decode stops the run at its start with a `RowError` naming the
    task, the row, the field and the file (a folder of frames is checked by the row reader).
    Returns how many distinct video files were probed."""
    seen: set[Path] = set()
    for row in rows:
        for field in ("global_media", "example_media", "query_media"):
            for relative in getattr(row, field):
                path = inside_data_dir(
                    data_dir, relative, row=row.where, field=field, error=RowError
                )
                if path in seen or not is_video_file(path):
                    continue
                try:
                    probe(path)
                except VideoError as err:
                    raise RowError(f"{row.where}: field {field!r}: {relative}: {err}") from None
                seen.add(path)
    return len(seen)
