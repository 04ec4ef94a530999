"""The shipped MEGA-Bench sample is what `dataset_scripts/make_megabench_sample.py` writes: the
maker's rows, drawn afresh, are the shipped parquet rows, and its pictures the shipped ones."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from PIL import Image, ImageChops

from dataset_scripts.make_megabench_sample import OUT, build_rows
from vlmscope.literals import python_literal

CONFIGS = ("core", "open")


def shipped_rows() -> list[dict[str, str]]:
    rows = [
        row
        for name in CONFIGS
        for row in pq.read_table(OUT / name / "test-00000-of-00001.parquet").to_pylist()
    ]
    return sorted(rows, key=lambda row: int(row["id"]))


def test_maker_rows_are_the_shipped_rows(tmp_path: Path) -> None:
    rows = build_rows(tmp_path)
    assert len(rows) == 16  # eight tasks of two queries each
    assert rows == shipped_rows()


def test_maker_draws_every_picture_a_row_names(tmp_path: Path) -> None:
    """Each still image a row names is drawn under the output folder, pixel for pixel the
    shipped one; a video folder holds frames, a clip is a file."""
    named = set()
    for row in build_rows(tmp_path):
        for column in ("global_media", "example_media", "query_media"):
            named.update(python_literal(row[column]))
    assert len(named) > 20
    for rel in sorted(named):
        drawn, shipped = tmp_path / rel, OUT / rel
        if rel.endswith(".png"):
            with Image.open(drawn) as a, Image.open(shipped) as b:
                assert (
                    ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None
                ), rel
        elif rel.endswith(".mp4"):
            assert drawn.stat().st_size > 0, rel
        else:
            assert sorted(p.name for p in drawn.iterdir()) == sorted(
                p.name for p in shipped.iterdir()
            )
