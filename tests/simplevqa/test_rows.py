"""Reading the upstream layouts; every bad row names its data_id and field."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from vlmscope.datasets.simplevqa import build
from vlmscope.tracks.simplevqa.rows import (
    SAMPLE_DIR,
    Category,
    SimpleVQADataError,
    SimpleVQARow,
    parse_category,
    read_rows,
)

JSON_NAME = "simpleVQA_final_modified.json"


def test_shipped_sample_covers_what_the_track_needs() -> None:
    rows = read_rows(SAMPLE_DIR)
    assert {r.language for r in rows} == {"CN", "EN"}
    assert all((r.data_id < 1012) == (r.language == "CN") for r in rows)
    assert {r.image_format for r in rows} == {"PNG", "JPEG"}
    assert any(r.answer.isdigit() for r in rows)
    assert any(r.category == Category() for r in rows)
    assert len({r.category.task_category for r in rows if r.category.task_category}) >= 2
    assert len({r.category.subject_category for r in rows if r.category.subject_category}) >= 2
    assert all(r.atomic_question and r.atomic_fact for r in rows)
    assert any(r.vqa_category.startswith("{'") for r in rows)  # Python-literal serialisation
    for row in rows:
        assert Image.open(io.BytesIO(row.image)).size[0] > 0


def test_json_layout_reads_the_same_rows(sample_records, write_json_layout) -> None:
    parquet_rows = read_rows(SAMPLE_DIR)
    json_rows = read_rows(write_json_layout(sample_records))
    assert [(r.data_id, r.image, r.category, r.question) for r in json_rows] == [
        (r.data_id, r.image, r.category, r.question) for r in parquet_rows
    ]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("image", "not base64!!", "data_id 1012: field 'image' is not valid base64"),
        ("image", "aGVsbG8gd29ybGQ=", "data_id 1012: field 'image' does not decode as an image"),
        ("vqa_category", "[1, 2", "data_id 1012: field 'vqa_category' is not a dict"),
        (
            "vqa_category",
            '{"task_category": 3}',
            "data_id 1012: field 'vqa_category.task_category' is int",
        ),
        ("language", "FR", "data_id 1012: field 'language' is 'FR'"),
        ("question", " ", "data_id 1012: field 'question' is empty"),
        ("answer", None, "data_id 1012: field 'answer' is empty"),
    ],
)
def test_bad_row_names_its_data_id_and_field(
    sample_records, write_parquet, field, value, message
) -> None:
    bad = next(r for r in sample_records if r["data_id"] == 1012)
    bad[field] = value
    with pytest.raises(SimpleVQADataError, match=message.replace("(", r"\(")):
        read_rows(write_parquet(sample_records))


def test_missing_field_in_json_layout(sample_records, write_json_layout) -> None:
    del sample_records[2]["atomic_fact"]
    with pytest.raises(SimpleVQADataError, match="data_id 2: missing field\\(s\\) atomic_fact"):
        read_rows(write_json_layout(sample_records))


def test_missing_image_file_in_json_layout(sample_records, write_json_layout) -> None:
    folder = write_json_layout(sample_records)
    (folder / "simpleVQA_datasets" / "img_1013.bin").unlink()
    with pytest.raises(
        SimpleVQADataError, match="data_id 1013: field 'image': file 'img_1013.bin' not found"
    ):
        read_rows(folder)


def test_missing_parquet_column(sample_records, write_parquet) -> None:
    for record in sample_records:
        del record["source"]
    with pytest.raises(SimpleVQADataError, match="test.parquet: missing column\\(s\\) source"):
        read_rows(write_parquet(sample_records))


def test_duplicate_data_id_stops_the_reader_and_the_builder(
    sample_records, write_parquet, tmp_path
) -> None:
    message = (
        "test.parquet, data_id 1012: field 'data_id' repeats row 3 (row 6); "
        "it would be asked and graded twice"
    )
    folder = write_parquet([*sample_records, sample_records[3]])
    with pytest.raises(SimpleVQADataError) as read:
        read_rows(folder)
    assert str(read.value) == message
    with pytest.raises(SimpleVQADataError) as built:
        build("default", folder, str(tmp_path / "cache"))
    assert str(built.value) == message
    assert rows_as_read(read_rows(write_parquet(sample_records))) == rows_as_read(
        read_rows(SAMPLE_DIR)
    )


def rows_as_read(rows: list[SimpleVQARow]) -> list[tuple[object, ...]]:
    return [(r.data_id, r.image, r.question, r.answer, r.category) for r in rows]


def outside_image(folder: Path) -> str:
    outside = folder.parent / "outside.bin"
    shutil.copy(folder / "simpleVQA_datasets" / "img_1013.bin", outside)
    (folder / "simpleVQA_datasets" / "link.bin").symlink_to(outside)
    return "link.bin"


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (
            lambda folder: "../../../../etc/passwd",
            "data_id 1013: field 'image' names '../../../../etc/passwd', which resolves to ",
        ),
        (
            lambda folder: "/etc/passwd",
            "data_id 1013: field 'image' names an absolute path '/etc/passwd'",
        ),
        (outside_image, "data_id 1013: field 'image' names 'link.bin', which resolves to "),
    ],
    ids=["climbing out", "absolute", "symlink out"],
)
def test_image_path_leaving_the_data_folder_is_refused(
    sample_records, write_json_layout, tmp_path, image, message
) -> None:
    folder = write_json_layout(sample_records)
    records = json.loads((folder / JSON_NAME).read_text(encoding="utf-8"))
    bad = next(r for r in records if r["data_id"] == 1013)
    bad["image"] = image(folder)
    (folder / JSON_NAME).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(SimpleVQADataError) as read:
        read_rows(folder)
    assert str(read.value).startswith(f"{JSON_NAME}, {message}")
    if "absolute" not in message:
        assert "outside the data folder" in str(read.value)
    with pytest.raises(SimpleVQADataError) as built:
        build("default", folder, str(tmp_path / "cache"))
    assert str(built.value) == str(read.value)
    # the other rows are read exactly as before
    others = [r for r in records if r["data_id"] != 1013]
    (folder / JSON_NAME).write_text(json.dumps(others, ensure_ascii=False), encoding="utf-8")
    expected = [r for r in read_rows(SAMPLE_DIR) if r.data_id != 1013]
    assert rows_as_read(read_rows(folder)) == rows_as_read(expected)


def test_image_linked_inside_the_data_folder_is_read(sample_records, write_json_layout) -> None:
    folder = write_json_layout(sample_records)
    images = folder / "simpleVQA_datasets"
    (images / "link.bin").symlink_to(images / "img_1013.bin")
    records = json.loads((folder / JSON_NAME).read_text(encoding="utf-8"))
    next(r for r in records if r["data_id"] == 1013)["image"] = "link.bin"
    (folder / JSON_NAME).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    assert rows_as_read(read_rows(folder)) == rows_as_read(read_rows(SAMPLE_DIR))


def test_empty_folder(tmp_path) -> None:
    with pytest.raises(
        SimpleVQADataError, match="expected test.parquet or exactly one .json/.jsonl"
    ):
        read_rows(tmp_path)


@pytest.mark.parametrize(
    "value",
    [
        {"task_category": "OCR", "subject_category": "Life", "entity_class": "Sign"},
        '{"task_category": "OCR", "subject_category": "Life", "entity_class": "Sign"}',
        "{'task_category': 'OCR', 'subject_category': 'Life', 'entity_class': 'Sign'}",
        {"task_category": "OCR", "subject_category": "Life", "entity_class": ["Sign"]},
    ],
)
def test_category_serialisations(value) -> None:
    assert parse_category(value) == Category("OCR", "Life", "Sign")


@pytest.mark.parametrize("value", ["", "{}", {}, " {} "])
def test_empty_category(value) -> None:
    assert parse_category(value) == Category()
