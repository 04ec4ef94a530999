"""VisionArena-Bench's anchor answers from a file (`options.anchor_answers`).

The paper's anchor is GPT-4-Turbo; its answers need not be asked again in every run. A file of
them makes the anchor part of the data, as ProBench's baseline answers are part of its rows:
- format: JSON lines (`.jsonl`) or parquet (`.parquet`), one row per bench prompt:
  `question_id` (str), `answer` (str), optional `model` (the anchor's name; rows that give one
  must all give the same), optional `token_len` (a non-negative int: the answer's length as
  style control and "avg tokens" count it, e.g. arena-hard-auto's tiktoken count; default the
  answer's whitespace words, as for a model whose backend reports no count). Other fields (a
  `note`, arena-hard's `answer_id`, `tstamp`) are ignored;
- a row whose `question_id` is not a row of the bench data, an id given twice, a missing or
  non-string `answer`, or a bad `model` / `token_len` is an error naming the file, the line
  (the row, counted from 1, of a parquet file) and the field;
- a bench prompt the file has no answer for is no error: the track counts it for every model as
  `anchor_missing`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Set
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from vlmscope.json_lines import json_lines
from vlmscope.messages import Response, Usage
from vlmscope.tracks.pairwise import FileAnchor
from vlmscope.tracks.visionarena.row_files import VisionArenaDataError

SUFFIXES = (".jsonl", ".parquet")


def anchor_file(path: str, data_dir: Path) -> Path:
    """Where `options.anchor_answers` points: an absolute path as is; a relative one inside the
    bench's data folder (`data_dir`, the shipped sample when none is set), so the shipped
    sample's answers are found wherever the package is installed."""
    given = Path(path).expanduser()
    located = given if given.is_absolute() else data_dir / given
    if located.suffix not in SUFFIXES:
        raise VisionArenaDataError(
            f"options.anchor_answers: {path!r} is not a {' or '.join(SUFFIXES)} file"
        )
    if not located.is_file():
        where = "" if given.is_absolute() else f" (a relative path is read from {data_dir})"
        raise VisionArenaDataError(f"options.anchor_answers: no file {located}{where}")
    return located


def read_anchor_answers(path: Path, question_ids: Set[str], default_name: str) -> FileAnchor:
    """The anchor's answers in `path` for the bench prompts `question_ids` (all of the data's,
    not only those a `limit` keeps); named by the rows' `model`, else `default_name`."""
    answers: dict[str, Response] = {}
    lines: dict[str, int] = {}
    name: str | None = None
    for line, row in _rows(path):
        where = f"{path}, {'line' if path.suffix == '.jsonl' else 'row'} {line}"
        question_id = row.get("question_id")
        if not isinstance(question_id, str) or not question_id.strip():
            raise _error(where, "question_id", f"missing or not a string: {question_id!r}")
        if question_id not in question_ids:
            raise _error(where, "question_id", f"{question_id!r} is not a prompt of the bench data")
        if question_id in lines:
            raise _error(where, "question_id", f"{question_id!r} repeats line {lines[question_id]}")
        answer = row.get("answer")
        if not isinstance(answer, str):
            raise _error(where, "answer", f"missing or not a string: {_shown(answer)}")
        model = row.get("model")
        if model is not None:
            if not isinstance(model, str) or not model.strip():
                raise _error(where, "model", f"not a model name: {model!r}")
            if name is not None and model != name:
                raise _error(where, "model", f"{model!r}, but earlier rows name {name!r}")
            name = model
        token_len = row.get("token_len")
        if token_len is not None and (
            isinstance(token_len, bool) or not isinstance(token_len, int) or token_len < 0
        ):
            raise _error(where, "token_len", f"not a non-negative integer: {token_len!r}")
        lines[question_id] = line
        answers[question_id] = Response(answer, usage=Usage(completion_tokens=token_len or 0))
    return FileAnchor(name or default_name, answers, str(path))


def _rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(line or row number from 1, record) of every row; blank JSON lines are skipped."""
    if path.suffix == ".parquet":
        try:
            records = pq.read_table(path).to_pylist()
        except (OSError, ValueError) as err:
            raise VisionArenaDataError(f"{path}: not a readable parquet file: {err}") from err
        yield from enumerate(records, start=1)
        return
    for number, text in json_lines(path.read_text(encoding="utf-8")):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            raise VisionArenaDataError(
                f"{path}, line {number}: not valid JSON ({err.msg} at column {err.colno})"
            ) from err
        if not isinstance(record, dict):
            raise VisionArenaDataError(f"{path}, line {number}: not a JSON object")
        yield number, record


def _error(where: str, field: str, problem: str) -> VisionArenaDataError:
    return VisionArenaDataError(f"{where}: field {field!r}: {problem}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
