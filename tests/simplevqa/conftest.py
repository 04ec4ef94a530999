"""Shared fixtures: the shipped sample's raw records, and writers for (broken) copies of it."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vlmscope.tracks.simplevqa.rows import SAMPLE_DIR

Records = list[dict[str, Any]]


@pytest.fixture
def sample_records() -> Records:
    return pq.read_table(SAMPLE_DIR / "test.parquet").to_pylist()


@pytest.fixture
def write_parquet(tmp_path: Path) -> Callable[[Records], Path]:
    def write(records: Records) -> Path:
        folder = tmp_path / "parquet_layout"
        folder.mkdir(exist_ok=True)
        pq.write_table(pa.Table.from_pylist(records), folder / "test.parquet")
        return folder

    return write


@pytest.fixture
def write_json_layout(tmp_path: Path) -> Callable[[Records], Path]:
    """The authors' layout: a JSON list whose `image` names a file in simpleVQA_datasets/."""

    def write(records: Records) -> Path:
        folder = tmp_path / "json_layout"
        images = folder / "simpleVQA_datasets"
        images.mkdir(parents=True, exist_ok=True)
        out = []
        for record in records:
            name = f"img_{record['data_id']}.bin"
            (images / name).write_bytes(base64.b64decode(record["image"]))
            category = record["vqa_category"]
            out.append(
                {
                    **record,
                    "image": name,
                    "vqa_category": json.loads(category) if category.startswith('{"') else category,
                }
            )
        (folder / "simpleVQA_final_modified.json").write_text(
            json.dumps(out, ensure_ascii=False), encoding="utf-8"
        )
        return folder

    return write
