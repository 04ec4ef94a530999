"""A builder over a user's folder rebuilds when a file in it changes, for every track."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vlmscope.datasets.megabench import MegaBench
from vlmscope.datasets.probench import ProBench
from vlmscope.datasets.simplevqa import SimpleVQA
from vlmscope.datasets.visionarena import VisionArenaBench
from vlmscope.tracks.shipped_samples import sample_dir

# (builder, sample, a parquet file inside it, a string column to change, the split)
CASES = [
    (SimpleVQA, "simplevqa", "test.parquet", "question", "test"),
    (ProBench, "probench", "data/train-00000-of-00001.parquet", "uuid", "train"),
    (MegaBench, "megabench", "core/test-00000-of-00001.parquet", "query_text", "test"),
]


def _rewrite(path: Path, column: str, value: str) -> None:
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[0][column] = value
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    stat = path.stat()  # a later modification time even on a coarse clock
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


@pytest.mark.parametrize(("builder", "sample", "file", "column", "split"), CASES)
def test_a_changed_file_is_built_again(tmp_path, builder, sample, file, column, split) -> None:  # type: ignore[no-untyped-def]
    """The cache used to be keyed by the folder's name only: the fixed row was never seen."""
    data = tmp_path / "data"
    shutil.copytree(sample_dir(sample), data)
    cache = str(tmp_path / "cache")

    def first_value() -> str:
        prepared = builder(data_dir=str(data), cache_dir=cache)
        prepared.download_and_prepare()
        return str(prepared.as_dataset(split=split)[0][column])

    before = first_value()
    assert first_value() == before  # an unchanged folder reads the same build
    _rewrite(data / file, column, "changed in place")
    assert first_value() == "changed in place"


def test_visionarena_builder_follows_its_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "bench"
    shutil.copytree(sample_dir("visionarena") / "bench", data)
    kwargs = {"data_dir": str(data), "cache_dir": str(tmp_path / "cache")}
    before = VisionArenaBench(**kwargs).hash
    assert VisionArenaBench(**kwargs).hash == before
    _rewrite(data / "data/train-00000-of-00001.parquet", "category", "changed")
    assert VisionArenaBench(**kwargs).hash != before


def test_the_shipped_samples_are_fingerprinted_too(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Without a data_dir the builder reads the package's samples: a newer package with
    redrawn samples must not be served the build of the older one."""
    from vlmscope.datasets import data_fingerprint

    samples = tmp_path / "samples"
    shutil.copytree(sample_dir("simplevqa"), samples / "simplevqa")
    monkeypatch.setattr(data_fingerprint, "SAMPLES_ROOT", samples)
    before = SimpleVQA(cache_dir=str(tmp_path / "cache")).hash
    assert before and SimpleVQA(cache_dir=str(tmp_path / "cache")).hash == before
    _rewrite(samples / "simplevqa" / "test.parquet", "question", "redrawn")
    assert SimpleVQA(cache_dir=str(tmp_path / "cache")).hash != before
