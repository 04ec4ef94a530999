"""Video files sampled as the official MEGA-Bench query side samples them, on real files.

Each test writes small videos with OpenCV (several frame rates and lengths, two codecs and
containers) and compares what vlmscope keeps with `official_frames` below: the official
`process_video` loop restated from the specification (frame count and rate from the header,
one gap, every decoded frame whose index % gap == 0, each kept frame written with
`cv2.imwrite` to a `.jpg` and sent through the image path). Kept indices must be equal and
the bytes sent equal to the official pipeline's; the pixels sent are checked against OpenCV's
own decoding of those frames, within the loss of the two JPEG encodings the pipeline makes.
"""

from __future__ import annotations

import io
import math
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, ImagePart, TextPart
from vlmscope.tracks.megabench.prompt import VIDEO_END, VIDEO_START, build_prompt
from vlmscope.tracks.megabench.rows import QueryRow, RowError
from vlmscope.tracks.megabench.video import (
    VideoError,
    VideoHeader,
    check_videos,
    sample_video,
    sampling_gap,
)

CODECS = [("mp4v", ".mp4"), ("MJPG", ".avi")]
PARAMS = GenerationParams(max_new_tokens=8)
JPEG_TOLERANCE = 6.0
"""Mean absolute difference (0-255) allowed between a sent frame and OpenCV's decoding of it:
the official pipeline encodes each frame twice (OpenCV quality 95, then Pillow quality 75)."""


def write_video(
    path: Path, fourcc: str, fps: float, n_frames: int, size: tuple[int, int] = (64, 48)
) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, size)
    assert writer.isOpened(), f"cannot write {path}"
    width, height = size
    ramp = np.linspace(0, 255, width, dtype=np.uint8)[None, :]
    for i in range(n_frames):
        frame = np.zeros((height, width, 3), np.uint8)
        frame[:, :, 0] = ramp
        frame[:, :, 1] = (i * 37) % 256
        frame[:, :, 2] = (i * 11) % 256
        cv2.putText(frame, str(i), (4, height // 2 + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255,) * 3)
        writer.write(frame)
    writer.release()
    return path


def official_frames(
    path: Path,
    num_frames: int,
    *,
    is_demo: bool,
    demo_video_frames: int,
    mode: str = "fps",
    max_side: int = 1000,
) -> list[tuple[int, np.ndarray, bytes]]:
    """The official loop, restated: (index, OpenCV's decoded frame, the image bytes sent)."""
    cap = cv2.VideoCapture(str(path))
    frame_count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    fps = cap.get(cv2.CAP_PROP_FPS)
    sampling_gap_maxframe = 1 if not num_frames else math.ceil(frame_count / num_frames)
    if mode == "max":
        gap = max(math.ceil(fps / 5), sampling_gap_maxframe) if fps >= 10 else sampling_gap_maxframe
    else:
        gap_fps = math.ceil(frame_count / demo_video_frames) if is_demo else math.ceil(fps)
        gap = max(gap_fps, sampling_gap_maxframe)
    kept = []
    frame_number = 0
    while True:
        success, frame = cap.read()
        if not success:
            break
        if frame_number % gap == 0:
            with tempfile.NamedTemporaryFile(suffix=".jpg", delete=False) as temp_frame:
                cv2.imwrite(temp_frame.name, frame)
                image = Image.open(temp_frame.name)
                if max(image.size) > max_side:
                    scale = max_side / max(image.size)
                    image = image.resize((int(image.size[0] * scale), int(image.size[1] * scale)))
                out = io.BytesIO()
                image.convert("RGB").save(out, format="JPEG")
                os.remove(temp_frame.name)
            kept.append((frame_number, frame, out.getvalue()))
        frame_number += 1
    cap.release()
    assert frame_number > 0
    return kept


@pytest.mark.parametrize("fourcc,suffix", CODECS)
@pytest.mark.parametrize(
    "fps,n_frames", [(1, 1), (1, 7), (8, 17), (24, 100), (29.97, 61), (30, 301)]
)
@pytest.mark.parametrize("num_frames", [0, 1, 4, 24])
def test_video_kept_indices_match_official_query(
    tmp_path, fourcc, suffix, fps, n_frames, num_frames
):
    path = write_video(tmp_path / f"clip{suffix}", fourcc, fps, n_frames)
    for mode in ("fps", "max"):
        expected = official_frames(path, num_frames, is_demo=False, demo_video_frames=4, mode=mode)
        got = sample_video(path, num_frames, demo=False, demo_frames=4, mode=mode)
        assert got.indices == [index for index, _, _ in expected], (mode, got.gap)
        assert got.decoded == n_frames and got.header.frame_count == n_frames


@pytest.mark.parametrize("fourcc,suffix", CODECS)
@pytest.mark.parametrize("fps,n_frames,demo_frames", [(8, 17, 4), (24, 100, 2), (30, 301, 8)])
def test_video_demo_gap_divides_length_by_the_demo_share(
    tmp_path, fourcc, suffix, fps, n_frames, demo_frames
):
    path = write_video(tmp_path / f"demo{suffix}", fourcc, fps, n_frames)
    expected = official_frames(path, demo_frames, is_demo=True, demo_video_frames=demo_frames)
    got = sample_video(path, demo_frames, demo=True, demo_frames=demo_frames)
    assert got.indices == [index for index, _, _ in expected]
    assert len(got.indices) <= demo_frames


def test_video_gap_rule_from_the_spec():
    header = VideoHeader(frame_count=300, fps=30.0)
    # query, "fps": max(ceil(fps), ceil(frames / budget))
    assert sampling_gap(header, 64, demo=False, demo_frames=8) == 30
    assert sampling_gap(header, 4, demo=False, demo_frames=8) == 75
    # demo, "fps": max(ceil(frames / demo share), ceil(frames / budget))
    assert sampling_gap(header, 8, demo=True, demo_frames=8) == 38
    # "max": ceil(fps / 5) from 10 fps up, else only the budget's gap
    assert sampling_gap(header, 64, demo=False, demo_frames=8, mode="max") == 6
    assert sampling_gap(VideoHeader(300, 8.0), 64, demo=False, demo_frames=8, mode="max") == 5
    # no budget: gap 1 from the budget side
    assert sampling_gap(VideoHeader(10, 1.0), 0, demo=False, demo_frames=8) == 1
    with pytest.raises(VideoError, match="no sampling gap"):
        sampling_gap(VideoHeader(0, 0.0), 4, demo=False, demo_frames=8)


def video_row(query_media: tuple[str, ...], example_media: tuple[str, ...] = ()) -> QueryRow:
    return QueryRow(
        id="7",
        task_name="clip_task",
        task_description="Watch the clip.",
        global_media=(),
        example_text="Example: " + " ".join("<video>" for _ in example_media),
        example_media=example_media,
        query_text="How many? " + " ".join("<video>" for _ in query_media),
        query_media=query_media,
        answer={"count": "1"},
        metric_info={"field_score_function": {"count": "exact_str_match"}},
        eval_context={},
        taxonomy_tree_path="",
        application="",
        input_format="Videos",
        output_format="numerical_data",
    )


def sent_frames(parts) -> list[list[ImagePart]]:
    """The images between each pair of video markers, in order."""
    videos: list[list[ImagePart]] = []
    inside = False
    for part in parts:
        if isinstance(part, TextPart) and part.text == VIDEO_START:
            videos.append([])
            inside = True
        elif isinstance(part, TextPart) and part.text == VIDEO_END:
            inside = False
        elif inside:
            assert isinstance(part, ImagePart)
            videos[-1].append(part)
    return videos


@pytest.mark.parametrize("fourcc,suffix", CODECS)
def test_video_prompt_sends_official_bytes_and_pixels(tmp_path, fourcc, suffix):
    """A demo video and a query video through `build_prompt`: the budget split, the kept
    frames, the bytes sent (identical to the official pipeline's) and their pixels."""
    write_video(tmp_path / f"demo{suffix}", fourcc, 8, 40)
    write_video(tmp_path / f"query{suffix}", fourcc, 24, 120, size=(1200, 300))
    row = video_row((f"./query{suffix}",), (f"./demo{suffix}",))
    budget = ImageBudget(max_images=16, in_context_images=4)
    built = build_prompt(row, tmp_path, budget, params=PARAMS)
    demo_sent, query_sent = sent_frames(built.request.turns[0].parts)
    # demo share 4 frames for one demo video; the query video gets 16 - 4 = 12
    demo_expected = official_frames(
        tmp_path / f"demo{suffix}", 4, is_demo=True, demo_video_frames=4
    )
    query_expected = official_frames(
        tmp_path / f"query{suffix}", 12, is_demo=False, demo_video_frames=4
    )
    for sent, expected, name in (
        (demo_sent, demo_expected, "demo"),
        (query_sent, query_expected, "query"),
    ):
        assert [p.name for p in sent] == [f"{name}{suffix}#{i}" for i, _, _ in expected]
        assert [p.data for p in sent] == [data for _, _, data in expected]
        for part, (_, frame, _) in zip(sent, expected, strict=True):
            image = Image.open(io.BytesIO(part.data))
            assert image.format == "JPEG" and max(image.size) <= 1000
            decoded = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
            reference = np.asarray(Image.fromarray(decoded).resize(image.size), dtype=float)
            assert np.abs(np.asarray(image, dtype=float) - reference).mean() < JPEG_TOLERANCE
    assert len(query_sent) == 5  # 120 frames at 24 fps: gap max(24, ceil(120 / 12)) = 24


def test_video_truncated_file_samples_what_decodes(tmp_path):
    """A file cut short keeps the header's count; the loop runs over the frames that decode."""
    whole = write_video(tmp_path / "whole.avi", "MJPG", 30, 301).read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(whole[: len(whole) // 2])
    expected = official_frames(cut, 8, is_demo=False, demo_video_frames=4)
    got = sample_video(cut, 8, demo=False, demo_frames=4)
    assert got.header.frame_count == 301 and got.decoded < 301
    assert got.indices == [index for index, _, _ in expected]
    built = build_prompt(video_row(("./cut.avi",)), tmp_path, ImageBudget(), params=PARAMS)
    assert any("of the 301 frames its header announces decode" in n for n in built.notes)


@pytest.mark.parametrize("content", [b"", b"not a video" * 50, "truncated mp4"])
def test_video_that_does_not_decode_names_task_row_and_file(tmp_path, content):
    path = tmp_path / "media" / "broken.mp4"
    path.parent.mkdir()
    if content == "truncated mp4":
        whole = write_video(tmp_path / "whole.mp4", "mp4v", 24, 48).read_bytes()
        content = whole[: len(whole) // 3]
    path.write_bytes(content)
    row = video_row(("./media/broken.mp4",))
    with pytest.raises(
        RowError, match=r"task 'clip_task', row 7: field 'query_media'.*broken\.mp4"
    ):
        check_videos([row], tmp_path)
    with pytest.raises(
        RowError, match=r"task 'clip_task', row 7: field 'query_media'.*broken\.mp4"
    ):
        build_prompt(row, tmp_path, ImageBudget(), params=PARAMS)


def test_video_missing_file_is_named(tmp_path):
    row = video_row(("./gone.mp4",))
    with pytest.raises(RowError, match=r"row 7: field 'query_media': \./gone\.mp4: .*no such file"):
        check_videos([row], tmp_path)


def test_video_checks_each_file_once(tmp_path):
    write_video(tmp_path / "demo.mp4", "mp4v", 8, 9)
    write_video(tmp_path / "q.mp4", "mp4v", 8, 9)
    rows = [
        video_row(("./q.mp4",), ("./demo.mp4",)),
        replace(video_row(("./q.mp4",), ("./demo.mp4",)), id="8"),
    ]
    assert check_videos(rows, tmp_path) == 2
