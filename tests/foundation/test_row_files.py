"""The row-file helpers every track's reader shares (`vlmscope.tracks.hub_files`, `json_rows`):
an image that does not decode, a file name the file system cannot take, or a JSON-lines line
that does not parse is the row's error, naming where it is, in every track."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import pytest
from PIL import Image

from vlmscope.tracks.hub_files import image_format, read_image_file
from vlmscope.tracks.json_rows import json_records
from vlmscope.tracks.probench.rows import ProBenchDataError
from vlmscope.tracks.probench.rows import read_rows as read_probench
from vlmscope.tracks.simplevqa.rows import SimpleVQADataError
from vlmscope.tracks.simplevqa.rows import read_rows as read_simplevqa


class RowError(ValueError):
    pass


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    return buffer.getvalue()


def _noisy_jpeg() -> bytes:
    """A JPEG with enough entropy-coded data that cutting it leaves the header whole."""
    buffer = io.BytesIO()
    Image.effect_noise((64, 64), 80).convert("RGB").save(buffer, "JPEG", quality=95)
    return buffer.getvalue()


NOISY_JPEG = _noisy_jpeg()
"""One drawing of the noise, so the cut file below is a half of the whole one checked."""


def _bomb_bmp() -> bytes:
    """A 4x4 BMP whose header says 100000 x 100000 pixels."""
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, "BMP")
    data = bytearray(buffer.getvalue())
    struct.pack_into("<ii", data, 18, 100_000, 100_000)
    return bytes(data)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"P6\n16", "Reached EOF"),  # a header cut short: Pillow raises ValueError
        (_bomb_bmp(), "Image size"),  # Pillow's DecompressionBombError
        (
            b"not an image",
            r"cannot identify an image format Pillow reads in its 12 bytes \(they start b'not an image'\)$",
        ),
        (_png()[:30], ""),
        # Cut in its pixel data: `verify()` passes a JPEG unread, the decode does not.
        (NOISY_JPEG[: len(NOISY_JPEG) // 2], "image file is truncated"),
    ],
)
def test_bytes_that_do_not_decode_are_the_rows_error(data: bytes, why: str) -> None:
    with pytest.raises(RowError, match=f"row 7: field 'image' does not decode as an image: {why}"):
        image_format(data, "row 7", "image", RowError)
    assert image_format(_png(), "row 7", "image", RowError) == "PNG"
    assert image_format(NOISY_JPEG, "row 7", "image", RowError) == "JPEG"


def test_a_name_the_file_system_cannot_take_is_the_rows_error(tmp_path: Path) -> None:
    """Base64 text where a file name belongs (a Hub row exported to JSON) is too long a name."""
    long_name = "iVBOR" + "A" * 400  # one path component over the file system's 255 bytes
    with pytest.raises(
        RowError, match=r"row 7: field 'image': cannot read file 'iVBOR.{72}\.\.\.'"
    ):
        read_image_file(long_name, "row 7", "image", (tmp_path,), RowError)


def test_a_json_lines_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n{bad\n', encoding="utf-8")
    with pytest.raises(RowError, match=r"rows.jsonl, line 4: not valid JSON"):
        json_records(path, RowError)


def test_both_tracks_name_the_row_of_an_image_they_cannot_read(tmp_path: Path) -> None:
    text = "iVBOR" + "A" * 400  # base64 of an image, where a file name belongs
    simplevqa = tmp_path / "simplevqa"
    simplevqa.mkdir()
    row = {"data_id": 1, "image": text, "image_description": "", "language": "EN",
           "question": "q?", "answer": "a", "original_category": "", "source": "",
           "atomic_question": "", "atomic_fact": "", "vqa_category": "{}"}  # fmt: skip
    (simplevqa / "rows.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(SimpleVQADataError, match="data_id 1: field 'image': cannot read file"):
        read_simplevqa(simplevqa)
    probench = tmp_path / "probench"
    probench.mkdir()
    turns = [{"from": "human", "value": "q1"}, {"from": "gpt", "value": "a1"},
             {"from": "human", "value": "q2"}, {"from": "gpt", "value": "a2"}]  # fmt: skip
    row = {"uuid": "u1", "chat_type": "multi-round", "image": text, "conversations": turns}
    (probench / "rows.json").write_text(json.dumps([row]), encoding="utf-8")
    with pytest.raises(ProBenchDataError, match="uuid u1: field 'image': cannot read file"):
        read_probench(probench)
