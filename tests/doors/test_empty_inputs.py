"""An input with no rows is an error for every builder's export (a wrong folder, a download that
wrote nothing), naming the folder; `--allow-empty` exports the empty dataset."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from vlmscope.datasets import megabench, probench, simplevqa, visionarena
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT


def _emptied(tmp_path: Path, sample: str) -> Path:
    """A copy of the shipped sample whose parquet files keep their columns and lose every row."""
    folder = tmp_path / sample.replace("/", "_")
    shutil.copytree(SAMPLES_ROOT / sample, folder)
    for shard in folder.rglob("*.parquet"):
        table = pq.read_table(shard)
        pq.write_table(table.slice(0, 0), shard)
    return folder


EXPORTS: dict[str, tuple[str, Callable[[Path, Path, list[str]], int]]] = {
    "megabench": (
        "megabench",
        lambda data, out, extra: megabench.main(
            ["--data-dir", str(data), "--out", str(out), *extra]
        ),
    ),
    "probench": (
        "probench",
        lambda data, out, extra: probench.main(
            ["--out", str(out), "--data-dir", str(data), *extra]
        ),
    ),
    "simplevqa": (
        "simplevqa",
        lambda data, out, extra: simplevqa.main(
            ["--out", str(out), "--data-dir", str(data), *extra]
        ),
    ),
    "visionarena battle": (
        "visionarena/battle",
        lambda data, out, extra: visionarena.main(
            ["battle", "--out", str(out), "--data-dir", str(data), *extra]
        ),
    ),
}


@pytest.mark.parametrize("name", list(EXPORTS))
def test_an_export_of_no_rows_is_refused_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    sample, export = EXPORTS[name]
    data = _emptied(tmp_path, sample)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert export(data, tmp_path / "out", cache) == 2
    assert capsys.readouterr().err == (
        f"error: {data}: holds no rows; --allow-empty exports an empty dataset\n"
    )
    assert not (tmp_path / "out").exists()
    assert export(data, tmp_path / "out", [*cache, "--allow-empty"]) == 0
    assert (tmp_path / "out" / "README.md").is_file()
