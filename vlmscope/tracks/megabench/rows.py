"""Reading MEGA-Bench rows in the upstream layout of `TIGER-Lab/MEGA-Bench`.

Upstream stores one query per row, every column a string; lists and dicts are Python literals
(single quotes, not JSON), which is why they are decoded here with `vlmscope.literals`, never
`eval`. Media are relative paths into the unzipped `data.zip`; they are resolved against the data
directory (and must stay inside it), never opened here.

`read_rows` and `checked_rows` are the one reader of the track and the `datasets` builder. A row
that would change a result without anyone noticing is refused, naming its file and place in it,
its task, id and field: a null or empty `id` (it would be written as ""), a
repeated (task_name, id) (built and scored twice), a task without an entry in the task metadata
(it would drop out of the official summary), an unknown metric name, a null or empty `answer`
(the official evaluator fails on each of these), a media path outside the data folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.data_files import read_parquet, read_text
from vlmscope.json_lines import json_lines
from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.metric_types import unknown_metrics
from vlmscope.tracks.media_paths import inside_data_dir
from vlmscope.tracks.megabench.keywords import TASK_META_NAME, task_meta_for

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

    @property
    def where(self) -> str:
        """How an error names this row: its task and id."""
        return f"task {self.task_name!r}, row {self.id}"


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
    """One raw row decoded and checked on its own (see the module docstring for what else
    `checked_rows` checks across rows)."""
    row_id = str(raw.get("id", "?"))
    task = str(raw.get("task_name", "?"))
    where = f"task {task!r}, row {row_id}"
    missing = [c for c in STRING_COLUMNS if c not in raw]
    if missing:
        raise RowError(f"{where}: missing field(s) {', '.join(missing)}")
    if raw["id"] is None or not str(raw["id"]).strip():
        raise RowError(f"task {task!r}: field 'id' is {raw['id']!r}; every row needs its id")
    if raw["answer"] is None or not str(raw["answer"]).strip():
        raise RowError(f"{where}: field 'answer' is null or empty (the gold answer dict)")
    values: dict[str, Any] = {c: "" if raw[c] is None else str(raw[c]) for c in STRING_COLUMNS}
    for column in LIST_COLUMNS:
        items = parse_literal(values[column], list, task=task, row_id=row_id, field=column)
        if not all(isinstance(i, str) for i in items):
            raise RowError(f"task {task!r}, row {row_id}: field {column!r} must list path strings")
        values[column] = tuple(items)
    for column in DICT_COLUMNS:
        values[column] = parse_literal(values[column], dict, task=task, row_id=row_id, field=column)
    if not values["metric_info"].get("field_score_function"):
        raise RowError(f"{where}: field 'metric_info' has no field_score_function")
    if unknown := unknown_metrics(values["metric_info"]):
        named = ", ".join(f"{name!r} (for {field!r})" for field, name in unknown.items())
        raise RowError(f"{where}: field 'metric_info' names unknown metric(s) {named}")
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


def read_raw(data_dir: str | Path, config: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where the row is: file and line or 0-based index, the raw row) for every row."""
    import json

    root = Path(data_dir)
    for path in config_files(data_dir, config):
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        if path.suffix == ".jsonl":
            for line_no, line in json_lines(read_text(path, RowError)):
                try:
                    yield f"{name} line {line_no}", json.loads(line)
                except json.JSONDecodeError as err:
                    raise RowError(f"{name}, line {line_no}: not JSON ({err})") from err
        else:
            for index, raw in enumerate(read_parquet(path, RowError).to_pylist()):
                yield f"{name} row {index}", raw


def read_rows(
    data_dir: str | Path, *configs: str, task_meta: Mapping[str, Any] | None = None
) -> list[QueryRow]:
    """Every row of `configs`, in order, decoded and checked (`checked_rows`)."""
    return [row for _, row in checked_rows(data_dir, configs, task_meta=task_meta)]


def checked_rows(
    data_dir: str | Path, configs: Iterable[str], *, task_meta: Mapping[str, Any] | None = None
) -> Iterator[tuple[dict[str, Any], QueryRow]]:
    """Each raw row of `configs` with its decoded row, once it has passed every check.

    Besides `decode_row`: the task has an entry in `task_meta` (default: `task_meta_for(data_dir)`,
    the metadata the track summarises with); (task_name, id) is new across all `configs`; every
    media path, and every file of a frames folder, resolves inside `data_dir`; the task-level
    fields agree with the task's first row, as the official query side demands.
    """
    meta = task_meta_for(data_dir) if task_meta is None else task_meta
    seen: dict[tuple[str, str], str] = {}
    first: dict[str, QueryRow] = {}
    for config in configs:
        for place, raw in read_raw(data_dir, config):
            try:
                row = _checked_row(raw, config, data_dir, meta, seen, first)
            except RowError as err:
                raise RowError(f"{place}: {err}") from None
            yield raw, row


def _checked_row(
    raw: dict[str, Any],
    config: str,
    data_dir: str | Path,
    meta: Mapping[str, Any],
    seen: dict[tuple[str, str], str],
    first: dict[str, QueryRow],
) -> QueryRow:
    """One raw row decoded and checked against the rows read before it (`checked_rows`)."""
    row = decode_row(raw)
    if row.task_name not in meta:
        raise RowError(
            f"{row.where}: field 'task_name' has no entry in the task metadata "
            f"({TASK_META_NAME}), so the task would drop out of the official summary"
        )
    if (row.task_name, row.id) in seen:
        raise RowError(
            f"{row.where}: field 'id' repeats a row already read (config "
            f"{seen[row.task_name, row.id]!r}); it would be built and scored twice"
        )
    seen[row.task_name, row.id] = config
    ref = first.setdefault(row.task_name, row)
    check_task_fields(row, ref)
    check_media(row, data_dir, LIST_COLUMNS if ref is row else ("query_media",))
    return row


FRAME_SUFFIXES = frozenset({".png", ".jpg", ".jpeg"})
"""The files of a frames folder that are its frames (any other file in it is ignored)."""


def check_media(row: QueryRow, data_dir: str | Path, fields: Iterable[str] = LIST_COLUMNS) -> None:
    """Every media path of `row` in `fields` stays inside `data_dir`; so does every file of a
    frames folder (a task's later rows repeat its first row's global and example media). A
    frames folder without a frame would reach the model as a video of no frames, unnoticed."""
    for field in fields:
        for relative in getattr(row, field):
            path = inside_data_dir(data_dir, relative, row=row.where, field=field, error=RowError)
            if path.is_dir():
                frames = sorted(path.iterdir())
                for frame in frames:
                    inside_data_dir(
                        data_dir,
                        f"{relative}/{frame.name}",
                        row=row.where,
                        field=field,
                        error=RowError,
                    )
                if not any(frame.suffix.lower() in FRAME_SUFFIXES for frame in frames):
                    raise RowError(
                        f"{row.where}: field {field!r} names the frames folder {relative!r}, "
                        f"which holds no frame ({', '.join(sorted(FRAME_SUFFIXES))} files, read "
                        "in name order): put the video's frames in it, or name a video file"
                    )


def check_task_fields(row: QueryRow, ref: QueryRow) -> None:
    """Task-level fields must agree with the task's first row, as the official query side demands."""
    for name in ("task_description", "global_media", "example_text", "example_media"):
        if getattr(row, name) != getattr(ref, name):
            raise RowError(
                f"{row.where}: field {name!r} differs from row {ref.id} of the same task"
            )


def group_by_task(rows: list[QueryRow]) -> dict[str, list[QueryRow]]:
    """Tasks in order of first appearance; within a task the row order gives query_idx."""
    tasks: dict[str, list[QueryRow]] = {}
    for row in rows:
        tasks.setdefault(row.task_name, []).append(row)
    return tasks
