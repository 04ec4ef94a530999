"""A cut (truncated) image file opens, or is refused, as the official evaluator opens it.

The official module sets Pillow's truncated-file setting for the whole process and opens every
image with it; the expected outcomes below are what its own encoder did with these very files
(made here with Pillow, then cut). Two places differed from a decode that tries without the
setting first: an ICO decodes its first picture while opening, so a cut one only opens with the
setting; and a PNG whose chunk header after the pixel data is cut after its length ends the read
without the setting, while with it the chunk is read on and the file is refused.
"""

from __future__ import annotations

import io
import struct
import threading
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageFile

from vlmscope.datasets.megabench_images import query_image
from vlmscope.tracks.megabench import media
from vlmscope.tracks.megabench.media import decoded_image, image_part
from vlmscope.tracks.megabench.rows import RowError

SIZE = (48, 32)


def _picture(mode: str) -> Image.Image:
    """Detail in every row, so a cut loses pixels, not only padding."""
    image = Image.radial_gradient("L").resize(SIZE).convert(mode)
    for corner in ((0, 0), (0, SIZE[1] - 1)):
        image.putpixel(corner, (255, 0, 0, 255)[: len(mode)])
    return image


def _saved(mode: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    _picture(mode).save(buffer, **params)
    return buffer.getvalue()


def _cut(data: bytes, share: float) -> bytes:
    return data[: int(len(data) * share)]


def _png_with_text_after_pixels() -> tuple[bytes, int]:
    """A PNG with a tEXt chunk between its pixel data and IEND, and where that chunk starts."""
    data = _saved("RGB", format="PNG")
    end = data.rindex(b"IEND") - 4
    body = b"Comment\x00" + b"x" * 20
    chunk = b"tEXt" + body
    text = struct.pack(">I", len(body)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return data[:end] + text + data[end:], end


# The official encoder's outcome for each file: True where it sends an image, False where it fails.
OFFICIAL = {
    "cut.png": (_cut(_saved("RGB", format="PNG"), 0.6), True),
    "cut.jpg": (_cut(_saved("RGB", format="JPEG"), 0.9), True),
    "cut.gif": (_cut(_saved("P", format="GIF"), 0.6), True),
    "cut.bmp": (_cut(_saved("RGB", format="BMP"), 0.6), True),
    "cut.tif": (_cut(_saved("RGB", format="TIFF"), 0.6), True),
    "cut_lzw.tif": (_cut(_saved("RGB", format="TIFF", compression="tiff_lzw"), 0.6), False),
    "cut.webp": (_cut(_saved("RGB", format="WEBP"), 0.6), False),
    "cut.ico": (_cut(_saved("RGBA", format="ICO", sizes=[SIZE]), 0.6), True),
    "cut_bitmap.ico": (
        _cut(_saved("RGBA", format="ICO", sizes=[SIZE], bitmap_format="bmp"), 0.6),
        True,
    ),
    "cut_in_header.jpg": (_cut(_saved("RGB", format="JPEG"), 0.05), False),
}


def _opens(path: Path) -> bool:
    try:
        with decoded_image(str(path)) as (image, _):
            assert image.size == SIZE
        return True
    except OSError:
        return False


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")  # Pillow on the cut TIFF
@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_a_cut_file_opens_where_the_official_encoder_opens_it(tmp_path, name) -> None:  # type: ignore[no-untyped-def]
    data, official = OFFICIAL[name]
    path = tmp_path / name
    path.write_bytes(data)
    assert _opens(path) is official
    assert ImageFile.LOAD_TRUNCATED_IMAGES is False  # put back after each decode


# The part before the cut is kept: a PNG picture's top row, a bitmap's bottom row (stored first).
@pytest.mark.parametrize(("bitmap", "kept"), [("png", (0, 0)), ("bmp", (0, SIZE[1] - 1))])
def test_a_cut_ico_opens_as_far_as_it_goes(tmp_path, bitmap, kept) -> None:  # type: ignore[no-untyped-def]
    whole = _saved("RGBA", format="ICO", sizes=[SIZE], bitmap_format=bitmap)
    path = tmp_path / "icon.ico"
    path.write_bytes(_cut(whole, 0.6))
    with decoded_image(str(path)) as (image, truncated):
        assert truncated and image.size == SIZE
        pixel = image.convert("RGB").getpixel(kept)
    assert pixel == Image.open(io.BytesIO(whole)).convert("RGB").getpixel(kept) == (255, 0, 0)
    assert len(image_part(path, 1000).data) > 0  # the run sends it


# Cut k bytes into the 40-byte chunk after the pixel data: the official encoder opens the file
# for k of 0 to 3 (no chunk length to read) and 36 on (only the checksum is missing), and refuses
# it from 4 (a length, and a chunk type cut short) to 35 (the chunk's text cut short).
@pytest.mark.parametrize(
    ("into_chunk", "official"),
    [(k, k < 4 or k >= 36) for k in (0, 3, 4, 5, 6, 7, 8, 20, 35, 36, 39)],
)
def test_a_png_cut_in_a_chunk_after_its_pixels(tmp_path, into_chunk, official) -> None:  # type: ignore[no-untyped-def]
    data, chunk_at = _png_with_text_after_pixels()
    path = tmp_path / "cut.png"
    path.write_bytes(data[: chunk_at + into_chunk])
    assert _opens(path) is official
    if not official:
        with pytest.raises(RowError) as err:
            query_image(path, "cut.png", "task t, row 3")
        assert "row 3" in str(err.value) and "cut.png" in str(err.value)
        with pytest.raises(OSError):
            image_part(path, 1000)


def test_a_whole_file_decodes_without_the_truncation_lock(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Only a file that needs the truncated setting waits for its lock, so whole files decode
    in parallel; a whole PNG with chunks after its pixels is whole too."""
    names = {
        "whole.png": _png_with_text_after_pixels()[0],
        "whole.ico": _saved("RGBA", format="ICO"),
        "whole.jpg": _saved("RGB", format="JPEG"),
    }
    for name, data in names.items():
        (tmp_path / name).write_bytes(data)
    decoded: list[bool] = []

    def decode_all() -> None:
        for name in names:
            with decoded_image(str(tmp_path / name)) as (_, truncated):
                decoded.append(truncated)

    with media._truncation_lock:
        worker = threading.Thread(target=decode_all)
        worker.start()
        worker.join(timeout=30)
        finished = not worker.is_alive()
    worker.join()
    assert finished and decoded == [False, False, False]
