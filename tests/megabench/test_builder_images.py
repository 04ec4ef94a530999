"""The MEGA-Bench builder accepts the query images a run accepts: a truncated file builds (read
as far as it goes, as the official evaluator reads it, with a warning naming it), and a file no
decode reads stops the build naming it, as it stops a run."""

from __future__ import annotations

import io
import logging
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from vlmscope.datasets.megabench import build
from vlmscope.datasets.megabench_images import TRUNCATED, query_image
from vlmscope.tracks.megabench.media import decoded_image, image_part
from vlmscope.tracks.megabench.rows import RowError
from vlmscope.tracks.shipped_samples import sample_dir

SAMPLE = sample_dir("megabench")
FOLDER = "data/Perception/Sample/sample_single_answer"
SIZE = (200, 120)


def _encoded(fmt: str) -> bytes:
    """A picture with detail in every row, so a cut file loses pixels, not only padding."""
    image = Image.radial_gradient("L").resize(SIZE).convert("RGB")
    image.putpixel((0, 0), (255, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def _cut(fmt: str, share: float) -> bytes:
    data = _encoded(fmt)
    return data[: int(len(data) * share)]


def _sample_with(tmp_path: Path, name: str, data: bytes) -> Path:
    """The shipped sample with row 0's one query image replaced by `name` holding `data`."""
    root = tmp_path / "data"
    shutil.copytree(SAMPLE, root)
    (root / FOLDER / name).write_bytes(data)
    parquet = root / "core" / "test-00000-of-00001.parquet"
    table = pq.read_table(parquet)
    rows = table.to_pylist()
    rows[0]["query_media"] = str([f"./{FOLDER}/{name}"])
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), parquet)
    return root


@pytest.mark.parametrize(("fmt", "name"), [("PNG", "cut.png"), ("JPEG", "cut.jpg")])
def test_a_truncated_image_builds_as_far_as_it_decodes(tmp_path, caplog, fmt, name) -> None:  # type: ignore[no-untyped-def]
    root = _sample_with(tmp_path, name, _cut(fmt, 0.6))
    with caplog.at_level(logging.WARNING, logger="vlmscope.datasets.megabench_images"):
        ds = build("core", root, cache_dir=tmp_path / "cache")
    warned = [r.getMessage() for r in caplog.records if TRUNCATED in r.getMessage()]
    assert len(warned) == 1 and name in warned[0] and "row 0" in warned[0]
    stored = ds[0]["query_images"][0]  # opens without Pillow's truncated setting
    with decoded_image(str(root / FOLDER / name)) as (decoded, truncated):
        assert truncated
        assert stored.size == SIZE and stored.tobytes() == decoded.tobytes()
    whole = Image.open(io.BytesIO(_encoded(fmt))).convert("RGB")
    assert stored.getpixel((0, 0)) == whole.getpixel((0, 0))  # the part before the cut is kept
    assert ds[1]["query_images"][0].size == (96, 64)  # a whole file is untouched


def test_a_file_no_decode_reads_stops_the_build_naming_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = _sample_with(tmp_path, "garbage.png", b"\x89PNG\r\n\x1a\n and then nothing of one")
    with pytest.raises(RowError) as err:
        build("core", root, cache_dir=tmp_path / "cache")
    message = str(err.value)
    assert "sample_single_answer" in message and "row 0" in message
    assert "garbage.png" in message and "does not decode as an image" in message


FILES = {
    "whole.png": (_encoded("PNG"), True),
    "whole.jpg": (_encoded("JPEG"), True),
    "cut.png": (_cut("PNG", 0.6), True),
    "cut.jpg": (_cut("JPEG", 0.6), True),
    "cut_in_header.jpg": (_cut("JPEG", 0.2), False),
    "cut_in_header.png": (_encoded("PNG")[:20], False),
    "empty.png": (b"", False),
    "garbage.jpg": (b"not an image at all", False),
}


def test_the_run_and_the_builder_accept_the_same_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name, (data, accepted) in FILES.items():
        path = tmp_path / name
        path.write_bytes(data)
        try:
            image_part(path, 1000)  # the run's path: encoded now, for its digest
            run = True
        except Exception:
            run = False
        try:
            query_image(path, name, "task t, row 0")
            builder = True
        except RowError as err:
            assert name in str(err)
            builder = False
        assert (name, run, builder) == (name, accepted, accepted)
