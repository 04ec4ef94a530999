"""The prompts `vlmscope visionarena classify` labels: a JSONL file or a VisionArena-Chat folder.

A JSONL row is `{"id", "text", "images": [paths relative to the file], "categories": {...}}`
(categories only for a comparison with reference labels); a Chat folder gives each
conversation's first user prompt, its images and its category labels. A bad row is an error
naming the file and line (or the folder and conversation_id) and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class PromptRow:
    """One conversation to label: its first user prompt, its images, reference labels if any."""

    id: str
    text: str
    images: tuple[bytes, ...]
    reference: Mapping[str, bool | None] | None
    where: str = ""
    """Where the row came from, for messages: `FILE, line N` or `FOLDER, conversation_id ID`."""
    user_turns: tuple[str, ...] = ()
    """Every user turn's text, in order (FastChat's classifiers read them all); empty: `text`."""


JSONL_FIELDS = frozenset({"id", "text", "images", "categories"})


def read_prompt_rows(data: Path, *, limit: int | None = None) -> list[PromptRow]:
    """The conversations of a JSONL file or a VisionArena-Chat folder, in order; with `limit`,
    a JSONL file is read no further than its first `limit` conversations."""
    rows = _chat_rows(data) if data.is_dir() else _jsonl_rows(data, limit)
    return rows if limit is None else rows[:limit]


def _chat_rows(folder: Path) -> list[PromptRow]:
    from vlmscope.tracks.visionarena.rows import read_chat_rows

    out = []
    for row in read_chat_rows(folder):
        turns = tuple(t.text for t in row.conversation if t.role == "user")
        first = turns[0] if turns else ""
        where = f"{folder}, conversation_id {row.conversation_id}"
        labels = dict(row.category_labels) or None  # None: the row gives no reference labels
        out.append(PromptRow(row.conversation_id, first, row.images, labels, where, turns))
    return out


def _jsonl_rows(path: Path, limit: int | None) -> list[PromptRow]:
    rows: list[PromptRow] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if limit is not None and len(rows) >= limit:
                break
            if not line.strip():
                continue
            where = f"{path}, line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{where}: not JSON: {error}") from error
            if not isinstance(record, dict):
                raise ValueError(f"{where}: expected an object, got {type(record).__name__}")
            row = _jsonl_row(record, where, path.parent)
            if row.id in seen:
                raise ValueError(f"{where}: field 'id' {row.id!r} repeats line {seen[row.id]}")
            seen[row.id] = number
            rows.append(row)
    return rows


def _jsonl_row(record: Mapping[str, Any], where: str, folder: Path) -> PromptRow:
    row_id = record.get("id")
    if isinstance(row_id, int) and not isinstance(row_id, bool):
        row_id = str(row_id)
    if not isinstance(row_id, str) or not row_id:
        raise ValueError(f"{where}: field 'id' is missing or not text: {row_id!r}")
    unknown = sorted(set(record) - JSONL_FIELDS)
    if unknown:  # a misspelt "text" would otherwise classify an empty prompt
        raise ValueError(
            f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(JSONL_FIELDS))})"
        )
    text = record.get("text", "")
    if not isinstance(text, str):
        raise ValueError(f"{where}: field 'text' is not text: {text!r}")
    paths = record.get("images", [])
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ValueError(f"{where}: field 'images' is not a list of paths: {paths!r}")
    images = []
    for name in paths:
        image = folder / name
        try:
            images.append(image.read_bytes())
        except OSError as error:
            raise ValueError(f"{where}: field 'images': cannot read {image}: {error}") from error
    reference = record.get("categories")
    if reference is not None and not (
        isinstance(reference, dict)
        and all(v is None or isinstance(v, bool) for v in reference.values())
    ):
        raise ValueError(f"{where}: field 'categories' is not a mapping to true/false/null")
    return PromptRow(row_id, text, tuple(images), reference, where)


def check_references(rows: Sequence[PromptRow], categories: Sequence[str]) -> None:
    for row in rows:
        if row.reference is None:
            raise ValueError(f"{row.where}: no field 'categories' (asked for --reference-labels)")
        missing = [c for c in categories if c not in row.reference]
        if missing:
            raise ValueError(f"{row.where}: field 'categories' lacks {', '.join(missing)}")
