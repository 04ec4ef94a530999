"""Reading MEGA-Bench rows in the upstream layout of `TIGER-Lab/MEGA-Bench`.

Upstream stores one query per row, every column a string; lists and dicts are Python literals
(single quotes, not JSON), which is why they are decoded here with `vlmscope.literals`, never `eval`. Media are relative paths into the
unzipped `data.zip`; they are resolved against the data directory, never opened here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from vlmscope.literals import python_literal

STRING_COLUMNS = (
    "id",
    "task_name",
    "task_description",
    "global_media",
    "example_text",
    "example_media",
    "query_text",
    "query_media",
    "answer",
    "metric_info",
    "eval_context",
    "taxonomy_tree_path",
    "application",
    "input_format",
    "output_format",
)
LIST_COLUMNS = ("global_media", "example_media", "query_media")
DICT_COLUMNS = ("answer", "metric_info", "eval_context")
CONFIGS = ("core", "open", "core_single_image", "open_single_image")


class RowError(ValueError):
    """A row that cannot be used; the message names the task, the row id and the field."""


@dataclass(frozen=True)
class QueryRow:
    """One upstream row with its literal fields decoded."""

    id: str
    task_name: str
    task_description: str
    global_media: tuple[str, ...]
    example_text: str
    example_media: tuple[str, ...]
    query_text: str
    query_media: tuple[str, ...]
    answer: dict[str, Any]
    metric_info: dict[str, Any]
    eval_context: dict[str, Any]
    taxonomy_tree_path: str
    application: str
    input_format: str
    output_format: str


def parse_literal(text: str, expected: type, *, task: str, row_id: str, field: str) -> Any:
    """Decode one Python-literal field (never `eval`)."""
    if text is None or text == "":
        return expected()
    try:
        value = python_literal(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as err:
        raise RowError(
            f"task {task!r}, row {row_id}: field {field!r} is not a Python literal ({err})"
        ) from err
    if not isinstance(value, expected):
        raise RowError(
            f"task {task!r}, row {row_id}: field {field!r} should be a {expected.__name__}, "
            f"got {type(value).__name__}"
        )
    return value


def decode_row(raw: dict[str, Any]) -> QueryRow:
    row_id = str(raw.get("id", "?"))
    task = str(raw.get("task_name", "?"))
    missing = [c for c in STRING_COLUMNS if c not in raw]
    if missing:
        raise RowError(f"task {task!r}, row {row_id}: missing field(s) {', '.join(missing)}")
    values: dict[str, Any] = {c: "" if raw[c] is None else str(raw[c]) for c in STRING_COLUMNS}
    for column in LIST_COLUMNS:
        items = parse_literal(values[column], list, task=task, row_id=row_id, field=column)
        if not all(isinstance(i, str) for i in items):
            raise RowError(f"task {task!r}, row {row_id}: field {column!r} must list path strings")
        values[column] = tuple(items)
    for column in DICT_COLUMNS:
        values[column] = parse_literal(values[column], dict, task=task, row_id=row_id, field=column)
    if not values["metric_info"].get("field_score_function"):
        raise RowError(
            f"task {task!r}, row {row_id}: field 'metric_info' has no field_score_function"
        )
    return QueryRow(**values)


def config_files(data_dir: str | Path, config: str) -> list[Path]:
    """The files of one config: `<config>/*.parquet` (Hub layout) or `<config>.parquet`/`.jsonl`."""
    root = Path(data_dir)
    found = sorted((root / config).glob("*.parquet")) + sorted(
        (root / "data" / config).glob("*.parquet")
    )
    found += [p for p in (root / f"{config}.parquet", root / f"{config}.jsonl") if p.exists()]
    if not found:
        raise FileNotFoundError(f"no files for MEGA-Bench config {config!r} under {root}")
    return found


def read_raw(data_dir: str | Path, config: str) -> Iterator[dict[str, Any]]:
    import json

    for path in config_files(data_dir, config):
        if path.suffix == ".jsonl":
            with path.open(encoding="utf-8") as handle:
                for line_no, line in enumerate(handle, 1):
                    if line.strip():
                        try:
                            yield json.loads(line)
                        except json.JSONDecodeError as err:
                            raise RowError(
                                f"{path.name}, line {line_no}: not JSON ({err})"
                            ) from err
        else:
            yield from pq.read_table(path).to_pylist()


def read_rows(data_dir: str | Path, config: str) -> list[QueryRow]:
    rows = [decode_row(raw) for raw in read_raw(data_dir, config)]
    check_task_fields(rows)
    return rows


def check_task_fields(rows: list[QueryRow]) -> None:
    """Task-level fields must agree across a task's rows, as the official query side demands."""
    first: dict[str, QueryRow] = {}
    for row in rows:
        ref = first.setdefault(row.task_name, row)
        for name in ("task_description", "global_media", "example_text", "example_media"):
            if getattr(row, name) != getattr(ref, name):
                raise RowError(
                    f"task {row.task_name!r}, row {row.id}: field {name!r} differs from row {ref.id} of the same task"
                )


def group_by_task(rows: list[QueryRow]) -> dict[str, list[QueryRow]]:
    """Tasks in order of first appearance; within a task the row order gives query_idx."""
    tasks: dict[str, list[QueryRow]] = {}
    for row in rows:
        tasks.setdefault(row.task_name, []).append(row)
    return tasks
