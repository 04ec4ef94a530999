"""Read and validate SimpleVQA rows from the upstream files, in either upstream layout.

Both the `datasets` builder and the track read rows through this module, so a bad row fails the
same way everywhere: with its file, its `data_id`, the field and what is wrong, before any model
runs.

Layouts (`data_dir` holds one of them):
- `test.parquet` (the Hub file): the 11 upstream columns, `image` a base64 string;
- a `.json` or `.jsonl` file of the same records whose `image` is a file name inside
  `simpleVQA_datasets/` (the authors' zip) or beside the JSON file; the name must resolve inside
  that folder (no absolute path, no `..` or symlink leading out of it).
A repeated `data_id` is an error too: the row would be asked and graded twice.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.data_files import read_parquet
from vlmscope.literals import python_literal
from vlmscope.tracks.hub_files import image_format, read_image_file
from vlmscope.tracks.json_rows import json_records, single_json_file
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT

COLUMNS: tuple[str, ...] = (
    "data_id",
    "image",
    "image_description",
    "language",
    "question",
    "answer",
    "original_category",
    "source",
    "atomic_question",
    "atomic_fact",
    "vqa_category",
)
LANGUAGES: tuple[str, ...] = ("CN", "EN")
PARQUET_NAME = "test.parquet"
IMAGE_DIR_NAME = "simpleVQA_datasets"
#: The sample shipped as package data (`dataset_scripts/make_simplevqa_sample.py` writes it).
SAMPLE_DIR = SAMPLES_ROOT / "simplevqa"
_REQUIRED_TEXT = ("question", "answer")
_CATEGORY_KEYS = ("task_category", "subject_category", "entity_class")


class SimpleVQADataError(ValueError):
    """A file or row that cannot be used; the message names the data_id and the field."""


@dataclass(frozen=True)
class Category:
    """The parsed `vqa_category` record; empty strings where upstream has `{}`."""

    task_category: str = ""
    subject_category: str = ""
    entity_class: str = ""


@dataclass(frozen=True)
class SimpleVQARow:
    """One validated upstream row; `image` holds the decoded file bytes (PNG, JPEG, ...)."""

    data_id: int
    image: bytes
    image_format: str
    image_description: str
    language: str
    question: str
    answer: str
    original_category: str
    source: str
    atomic_question: str
    atomic_fact: str
    vqa_category: str
    category: Category

    @property
    def image_name(self) -> str:
        return f"{self.data_id}.{self.image_format.lower()}"


def read_rows(data_dir: str | Path) -> list[SimpleVQARow]:
    """All rows of `data_dir`, validated, in file order; duplicate ids are an error."""
    folder = Path(data_dir)
    source = folder / PARQUET_NAME
    if source.is_file():
        records = _parquet_records(source)
        image_dirs: tuple[Path, ...] = ()
    else:
        source = single_json_file(folder, SimpleVQADataError, PARQUET_NAME)
        records = json_records(source, SimpleVQADataError)
        image_dirs = _image_dirs(source)
    rows = []
    for i, record in enumerate(records):
        try:
            rows.append(parse_record(record, position=i, image_dirs=image_dirs))
        except SimpleVQADataError as err:
            raise SimpleVQADataError(f"{source.name}, {err}") from None
    seen: dict[int, int] = {}
    for position, row in enumerate(rows):
        if row.data_id in seen:
            raise SimpleVQADataError(
                f"{source.name}, data_id {row.data_id}: field 'data_id' repeats row "
                f"{seen[row.data_id]} (row {position}); it would be asked and graded twice"
            )
        seen[row.data_id] = position
    return rows


def parse_record(
    record: Mapping[str, Any], *, position: int, image_dirs: tuple[Path, ...] = ()
) -> SimpleVQARow:
    """Validate one raw record. `image_dirs` set means `image` is a file name, not base64."""
    data_id = _data_id(record, position)
    where = f"data_id {data_id}"
    missing = [c for c in COLUMNS if c not in record]
    if missing:
        raise SimpleVQADataError(f"{where}: missing field(s) {', '.join(missing)}")
    text = {
        c: _text(record[c], where, c)
        for c in COLUMNS
        if c not in ("data_id", "image", "vqa_category")
    }
    for name in _REQUIRED_TEXT:
        if not text[name].strip():
            raise SimpleVQADataError(f"{where}: field '{name}' is empty")
    language = text["language"].strip().upper()
    if language not in LANGUAGES:
        raise SimpleVQADataError(
            f"{where}: field 'language' is {text['language']!r}, expected CN or EN"
        )
    image, image_format = _image(record["image"], where, image_dirs)
    raw_category = record["vqa_category"]
    return SimpleVQARow(
        data_id=data_id,
        image=image,
        image_format=image_format,
        image_description=text["image_description"],
        language=language,
        question=text["question"],
        answer=text["answer"],
        original_category=text["original_category"],
        source=text["source"],
        atomic_question=text["atomic_question"],
        atomic_fact=text["atomic_fact"],
        vqa_category=raw_category
        if isinstance(raw_category, str)
        else json.dumps(raw_category, ensure_ascii=False),
        category=parse_category(raw_category, where),
    )


def parse_category(value: Any, where: str = "row") -> Category:
    """Parse `vqa_category`: a dict, its JSON text, or its Python repr (the one literal parser).

    Upstream stores a dict with task_category / subject_category / entity_class, sometimes `{}`;
    how the parquet serialises it is not documented, so JSON and Python-literal text both work.
    A list value (several entity classes) is joined with ", ".
    """
    record: Any = value
    if isinstance(value, str):
        stripped = value.strip()
        if stripped in ("", "{}"):
            return Category()
        try:
            record = json.loads(stripped)
        except json.JSONDecodeError:
            try:
                record = python_literal(stripped)
            except (ValueError, SyntaxError) as err:
                raise SimpleVQADataError(
                    f"{where}: field 'vqa_category' is not a dict: {value[:80]!r}"
                ) from err
    if not isinstance(record, Mapping):
        raise SimpleVQADataError(
            f"{where}: field 'vqa_category' is not a dict: {str(value)[:80]!r}"
        )
    fields: dict[str, str] = {}
    for key in _CATEGORY_KEYS:
        item = record.get(key, "")
        if isinstance(item, list) and all(isinstance(x, str) for x in item):
            item = ", ".join(item)
        if not isinstance(item, str):
            raise SimpleVQADataError(
                f"{where}: field 'vqa_category.{key}' is {type(item).__name__}, expected text"
            )
        fields[key] = item.strip()
    return Category(**fields)


def _data_id(record: Mapping[str, Any], position: int) -> int:
    value = record.get("data_id")
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise SimpleVQADataError(
            f"row {position}: field 'data_id' is missing or not an integer: {value!r}"
        )
    try:
        return int(value)
    except ValueError as err:
        raise SimpleVQADataError(
            f"row {position}: field 'data_id' is not an integer: {value!r}"
        ) from err


def _text(value: Any, where: str, name: str) -> str:
    """Upstream leaves some text fields empty or null; null reads as empty text."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise SimpleVQADataError(
            f"{where}: field '{name}' is {type(value).__name__}, expected text"
        )
    return value


def _image(value: Any, where: str, image_dirs: tuple[Path, ...]) -> tuple[bytes, str]:
    if not isinstance(value, str) or not value.strip():
        raise SimpleVQADataError(f"{where}: field 'image' is empty or not text")
    if image_dirs:
        data = read_image_file(value, where, "image", image_dirs, SimpleVQADataError)
    else:
        payload = value.split(",", 1)[1] if value.startswith("data:") else value
        try:
            data = base64.b64decode("".join(payload.split()), validate=True)
        except (binascii.Error, ValueError) as err:
            raise SimpleVQADataError(f"{where}: field 'image' is not valid base64: {err}") from err
    return data, image_format(data, where, "image", SimpleVQADataError) or "png"


def _parquet_records(path: Path) -> list[dict[str, Any]]:
    table = read_parquet(path, SimpleVQADataError)
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise SimpleVQADataError(f"{path.name}: missing column(s) {', '.join(missing)}")
    return table.select(list(COLUMNS)).to_pylist()


def _image_dirs(json_file: Path) -> tuple[Path, ...]:
    return (json_file.parent / IMAGE_DIR_NAME, json_file.parent)
