"""The JSON layout some upstream datasets ship: one `.json` (a list) or `.jsonl` file of records.

SimpleVQA's authors' zip and a ProBench export both come this way, with images as files beside
it. Each track's reader calls these with its own error type, so a bad file is reported the same
way as a bad row of that track.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlmscope.data_files import read_text
from vlmscope.json_lines import json_lines


def single_json_file(folder: Path, error: type[ValueError], expected: str) -> Path:
    """The one `.json`/`.jsonl` file of `folder`; `error` naming what was `expected` otherwise."""
    if not folder.is_dir():
        raise error(f"data_dir {folder} is not a directory")
    candidates = sorted(
        p for p in folder.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file()
    )
    if len(candidates) != 1:
        raise error(
            f"data_dir {folder}: expected {expected} or exactly one .json/.jsonl file, "
            f"found {[p.name for p in candidates]}"
        )
    return candidates[0]


def json_records(path: Path, error: type[ValueError]) -> list[dict[str, Any]]:
    """The records of a JSON list or JSON-lines file; `error` naming the file if it is not one,
    and the line of a JSON-lines file that is not JSON (with its column in that line: the
    parser's own "line 1" would be the one line it was given, not the file's)."""
    text = read_text(path, error)
    if path.suffix == ".jsonl":
        records = []
        for number, line in json_lines(text):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise error(
                    f"{path}, line {number}: not valid JSON ({err.msg} at column {err.colno})"
                ) from err
    else:
        try:
            records = json.loads(text)
        except json.JSONDecodeError as err:
            raise error(f"{path.name}: not valid JSON: {err}") from err
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise error(f"{path.name}: expected a list of records")
    return records
