"""Result files are replaced whole: a failed write leaves the previous file and no partial copy."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from vlmscope import atomic_files
from vlmscope.atomic_files import write_bytes_atomic, write_text_atomic
from vlmscope.tracks.megabench.official_files import write_json


def test_writes_creating_folders(tmp_path: Path) -> None:
    target = write_text_atomic(tmp_path / "a" / "b" / "out.md", "héllo\n")
    assert target.read_text(encoding="utf-8") == "héllo\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.md"]


def test_failed_rename_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "data_with_scores.json"
    write_json(target, {"old": 1})

    def refuse(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_json(target, {"new": 2})
    assert json.loads(target.read_text(encoding="utf-8")) == {"old": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["data_with_scores.json"]


def test_failed_write_leaves_no_partial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "votes.jsonl"
    write_bytes_atomic(target, b"old\n")
    real_write = atomic_files.write_all

    def half_then_fail(fd: int, data: bytes) -> None:
        real_write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_files, "write_all", half_then_fail)
    with pytest.raises(OSError):
        write_bytes_atomic(target, b"new content\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["votes.jsonl"]
