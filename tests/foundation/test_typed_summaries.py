"""Summaries load with their numbers as numbers: `load_dataset(folder, "summary")` needs no
`json.loads`, and the generic conversion types whatever shape a track's summary has."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import run_eval
from vlmscope.runner.results import result_dir
from vlmscope.typed_columns import typed, typed_table

CONFIG = Path(__file__).parents[1] / "configs" / "colours_oracle.yaml"


def test_objects_become_structs_and_numbers_stay_numbers() -> None:
    value = {"F": 0.5, "n": 3, "ci": (0.1, 0.9), "by": {"EN": {"F": np.float64(0.25)}}}
    assert typed(value) == {"F": 0.5, "n": 3, "ci": [0.1, 0.9], "by": {"EN": {"F": 0.25}}}
    kind = pa.array([typed(value)]).type
    assert kind.field("by").type.field("EN").type.field("F").type == pa.float64()
    assert kind.field("n").type == pa.int64()


def test_what_parquet_cannot_hold_is_stored_another_way(tmp_path: Path) -> None:
    """An empty object is a null struct; a list whose items share no type is its JSON text."""
    value = {"excluded": {}, "mixed": [1, "a"], "nested": [{"a": {}}], "nan": float("nan")}
    converted = typed(value)
    assert converted["excluded"] is None and converted["mixed"] == '[1, "a"]'
    assert converted["nested"] == [{"a": None}]
    table = typed_table([{"model": None, "scores": value}], {"model": pa.string()})
    pq.write_table(table, tmp_path / "x.parquet")  # Parquet takes it
    back = pq.read_table(tmp_path / "x.parquet").to_pylist()[0]
    assert back["model"] is None and back["scores"]["mixed"] == '[1, "a"]'
    assert np.isnan(back["scores"]["nan"])


def test_rows_whose_shapes_cannot_share_a_type_keep_json_text() -> None:
    table = typed_table([{"v": {"a": 1}}, {"v": {"a": "x"}}], {})
    assert table.column("v").to_pylist() == ['{"a": 1}', '{"a": "x"}']


def test_load_dataset_gives_the_summary_numbers_typed(tmp_path: Path) -> None:
    out = tmp_path / "results"
    assert run_eval.main(["--config", str(CONFIG), "--output-dir", str(out)]) == 0
    folder = result_dir(out, "oracle", "colours")
    ds = datasets.load_dataset(str(folder), "summary", split="test", cache_dir=str(tmp_path / "c"))
    row = ds[0]
    assert row["scores"]["accuracy"] == 1.0 and isinstance(row["scores"]["accuracy"], float)
    assert row["status_counts"] == {"ok": 24} and row["run_counts"]["generated"] == 24
    assert isinstance(row["package_versions"]["datasets"], str)
    assert ds.features["scores"]["accuracy"] == datasets.Value("float64")
    assert row["format_version"] == 3
    json.dumps(row)  # plain Python values all the way down
