"""A prompt's images as parts that hold a digest, not bytes, so the full benchmark's media
never sit in memory at once; and the image path every image and kept frame goes through.

Every sample of every model is built before the first request is sent, and built again when
scoring, so each image (and each kept video frame) is encoded once to learn its sha256 and its
bytes are dropped; they are made again, identically, when a backend or a judge reads the part
(`vlmscope.messages.DeferredImagePart`). Digests are remembered per file (path, size and time
stamp, so an edited file is encoded afresh), which makes building the same prompts again cost
no encoding. A video's kept frames are decoded together; the last few videos' frames are kept,
since a backend reads a request's frames one after the other.

The image path is the official one (`OpenAI.encode_image`), step for step, since each step
changes pixels or bytes: an RGBA image (that mode only) is flattened on white; an image whose
longer side is over the cap (1000 px by default) is resized in its own mode (so a palette or
bilevel image is resized nearest-neighbour, as Pillow does for those modes); only then is it
converted to RGB and saved, in the format its name's MIME type names (`.gif` as GIF, `.webp` as
WebP, no guess as JPEG). A truncated file is read as far as it goes, as the official module's
`ImageFile.LOAD_TRUNCATED_IMAGES` makes it, and refused where that setting refuses it (a PNG
cut inside a chunk after its pixel data, which reads without the setting). A kept video frame
is the JPEG OpenCV wrote, taken through the same path as a `.jpg` file.

Where the official code fails instead (a MIME type whose subtype Pillow cannot save, `.ppm` or
`.ico`), the image is sent as JPEG.
"""

from __future__ import annotations

import hashlib
import io
import mimetypes
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path

from PIL import Image, ImageFile

from vlmscope.messages import DeferredImagePart, ImagePart
from vlmscope.tracks.megabench.video import SampledVideo, VideoSampling, sample_video

FileKey = tuple[str, int, int]
"""(path, size, modification time in ns): a file as it is now."""
VideoKey = tuple[FileKey, int, bool, int, str, int]
"""A video file and how it is sampled: frame budget, demo or query, demo share, mode, max side."""


@dataclass(frozen=True)
class SampledFrames:
    """What a prompt needs of a sampled video once its frames are encoded: each kept frame's
    index and digest, and how many frames decoded against the header's count."""

    indices: tuple[int, ...]
    digests: tuple[str, ...]
    decoded: int
    announced: int


_image_digests: dict[tuple[FileKey, int], str] = {}
_video_digests: dict[VideoKey, SampledFrames] = {}


def image_part(path: Path, max_side: int) -> ImagePart:
    """The image file as a deferred part: encoded now for its digest, again when read."""
    file = _file_key(path)
    digest = _image_digests.get((file, max_side))
    if digest is None:
        digest = hashlib.sha256(_encoded(file, max_side)).hexdigest()
        _image_digests[(file, max_side)] = digest
    return DeferredImagePart(partial(_encoded, file, max_side), digest, name=path.name)


def video_parts(
    path: Path,
    num_frames: int,
    *,
    demo: bool,
    demo_frames: int,
    mode: VideoSampling,
    max_side: int,
) -> tuple[list[ImagePart], SampledFrames]:
    """The video's kept frames (`video.sample_video`) as deferred parts named `clip.mp4#<index>`."""
    key: VideoKey = (_file_key(path), num_frames, demo, demo_frames, mode, max_side)
    sampled = _video_digests.get(key)
    if sampled is None:
        video = _sampled(key)
        sampled = _video_digests[key] = SampledFrames(
            indices=tuple(video.indices),
            digests=tuple(hashlib.sha256(f).hexdigest() for f in _encoded_frames(key)),
            decoded=video.decoded,
            announced=video.header.frame_count,
        )
    parts: list[ImagePart] = [
        DeferredImagePart(partial(_frame, key, position), digest, name=f"{path.name}#{index}")
        for position, (index, digest) in enumerate(
            zip(sampled.indices, sampled.digests, strict=True)
        )
    ]
    return parts, sampled


@lru_cache(maxsize=64)
def _encoded(file: FileKey, max_side: int) -> bytes:
    """The file with transparency flattened on white, its longer side capped, re-encoded by its
    extension (`OpenAI.encode_image`); cached for the few files read last (a task's description
    and demo images recur in each of its queries, asked one after the other) and keyed by the
    file's size and time stamp, so an edited file is read again."""
    path = file[0]
    with decoded_image(path) as (image, _):
        return _reencode(image, save_format(path), max_side)


@contextmanager
def decoded_image(path: str) -> Iterator[tuple[Image.Image, bool]]:
    """The image file with its pixels decoded as the official module decodes them, and whether
    that took Pillow's truncated-file setting (the file ends early: it is read as far as it
    goes). A file that decodes by neither way raises Pillow's error. The one decode of a
    MEGA-Bench image, for a run and for the dataset builder alike, so a file one accepts the
    other does too."""
    image, truncated = _decoded(path)
    with image:
        yield image, truncated


def _decoded(path: str) -> tuple[Image.Image, bool]:
    """The file decoded without the truncated setting where that gives what the setting gives
    (Pillow only relaxes its checks with it), else decoded again, open and load, with it."""
    try:
        opened = Image.open(path)
    except Exception:  # a file whose header only opens with the setting (a cut ICO), or none
        return _decoded_even_truncated(path), True
    try:
        opened.load()
        if opened.format != "PNG" or _png_chunks_whole(path):
            return opened, False
    except Exception:  # a truncated file, or one that does not read even so (raised below)
        pass
    opened.close()  # afresh: a failed load leaves the image half read
    return _decoded_even_truncated(path), True


def _png_chunks_whole(path: str) -> bool:
    """Whether each chunk header of the PNG file, up to IEND, is whole and names a chunk.

    The one place Pillow is stricter with the truncated setting than without: after the pixel
    data, a chunk header cut after its length (or naming no chunk) ends the read without the
    setting, but with it the chunk's length is read on and a cut file fails, as the official
    evaluator's does. A PNG not so whole is therefore decoded with the setting."""
    with open(path, "rb") as file:
        file.seek(8)
        while True:
            header = file.read(8)
            if len(header) < 8 or not _CHUNK_TYPE.fullmatch(header[4:]):
                return False
            if header[4:] == b"IEND":
                return True
            file.seek(int.from_bytes(header[:4], "big") + 4, io.SEEK_CUR)


_CHUNK_TYPE = re.compile(rb"\w{4}")
"""A chunk type as Pillow's PNG reader accepts one."""


def save_format(path: str) -> str:
    """The format the official encoder saves an image file in: the subtype of the MIME type
    `mimetypes` guesses from its name, upper-cased ("image/png" -> PNG), JPEG when it guesses
    none, and JPEG where Pillow cannot save that subtype (the official encoder fails there)."""
    mime, _ = mimetypes.guess_type(path)
    fmt = mime.split("/")[-1].upper() if mime else "JPEG"
    Image.init()
    return fmt if fmt in Image.SAVE else "JPEG"


_truncation_lock = threading.Lock()


def _decoded_even_truncated(path: str) -> Image.Image:
    """The file opened and decoded with truncated files allowed (what the official module sets
    for the whole process), then Pillow's setting put back. The setting is one global of
    Pillow's, so it is switched on (under a lock) only for a file that did not decode the same
    without it: a whole file decodes the same either way, and other threads' decoding is not
    held up. The opening is inside too, since some formats decode while opening (an ICO reads
    its first picture). While it is on, another thread that decodes a truncated file without
    this lock is relaxed too; a per-image override would need copies of Pillow's own readers,
    which we judged not worth that rare overlap."""
    with _truncation_lock:
        before = ImageFile.LOAD_TRUNCATED_IMAGES
        ImageFile.LOAD_TRUNCATED_IMAGES = True
        try:
            opened = Image.open(path)
            try:
                opened.load()
            except BaseException:
                opened.close()
                raise
            return opened
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = before


def encode_frame(jpeg: bytes, max_side: int) -> bytes:
    """A kept video frame through the image path, as the official code sends it: the JPEG
    OpenCV wrote, opened, capped at `max_side` and saved again as JPEG (it is a `.jpg` file)."""
    with Image.open(io.BytesIO(jpeg)) as opened:
        return _reencode(opened, "JPEG", max_side)


def _reencode(opened: Image.Image, fmt: str, max_side: int) -> bytes:
    """The official steps in their order: only RGBA is flattened (LA or a palette with a
    transparent index lose their transparency in the final RGB conversion, not on white); the
    resize happens in the image's own mode; the RGB conversion keeps the image's info, so a
    PNG carries a converted transparency colour or an ICC profile as the official one does."""
    image = opened
    if image.mode == "RGBA":
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, image).convert("RGB")
    if max(image.size) > max_side:
        scale = max_side / max(image.size)
        image = image.resize((int(image.size[0] * scale), int(image.size[1] * scale)))
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format=fmt)
    return buffer.getvalue()


def _frame(key: VideoKey, position: int) -> bytes:
    return _encoded_frames(key)[position]


@lru_cache(maxsize=4)
def _encoded_frames(key: VideoKey) -> tuple[bytes, ...]:
    """The kept frames through the image path, for the few videos read last."""
    return tuple(encode_frame(jpeg, key[-1]) for _, jpeg in _sampled(key).frames)


@lru_cache(maxsize=2)
def _sampled(key: VideoKey) -> SampledVideo:
    (path, _, _), num_frames, demo, demo_frames, mode, _ = key
    return sample_video(
        Path(path),
        num_frames,
        demo=demo,
        demo_frames=demo_frames,
        mode=mode,  # type: ignore[arg-type]
    )


def _file_key(path: Path) -> FileKey:
    info = path.stat()
    return (str(path), info.st_size, info.st_mtime_ns)
