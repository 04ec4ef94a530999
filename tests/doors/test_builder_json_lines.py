"""A JSON-lines file given to a dataset builder with one line that is not JSON, between good
records, is refused with one `error:` line naming the file and that line (and where in it), exit
status 2 and no traceback: the record reader does not stop quietly at the line or skip it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from vlmscope.datasets import probench, visionarena
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT

BUILDERS = {
    "probench": (probench.main, [], SAMPLES_ROOT / "probench"),
    "visionarena chat": (visionarena.main, ["chat"], SAMPLES_ROOT / "visionarena" / "chat"),
    "visionarena bench": (visionarena.main, ["bench"], SAMPLES_ROOT / "visionarena" / "bench"),
}


def _good_line(sample: Path) -> str:
    """The sample's first record as a JSON line (its image fields aside: never read here)."""
    path = sorted(sample.rglob("*.parquet"))[0]
    record = pq.read_table(path).slice(0, 1).to_pylist()[0]
    return json.dumps({k: v for k, v in record.items() if "image" not in k}, default=str)


@pytest.mark.parametrize("builder", BUILDERS)
def test_a_line_that_is_not_json_is_named_by_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], builder: str
) -> None:
    main, dataset, sample = BUILDERS[builder]
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    good = _good_line(sample)
    rows = data / "rows.jsonl"
    rows.write_text(f"{good}\n\n{good[:-1]}, oops}}\n{good}\n", encoding="utf-8")
    argv = [*dataset, "--data-dir", str(data), "--out", str(tmp_path / "out")]
    assert main([*argv, "--cache-dir", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {rows}, line 3: not valid JSON (") and "column" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()
