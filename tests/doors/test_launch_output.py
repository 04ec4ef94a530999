"""`print_once`: one line per multi-process launch, whichever process ends first.

The processes of a launch are stood in for by calls under each one's environment (rank, world
size and the launcher's per-attempt error file), so the order of their ends can be chosen.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from vlmscope import launch_output
from vlmscope.input_errors import report
from vlmscope.launch_output import CLAIM, PRINTED, print_once


def as_process(monkeypatch: pytest.MonkeyPatch, attempt: Path, rank: int) -> None:
    """The environment torch's launcher gives process `rank` of two."""
    (attempt / str(rank)).mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", str(rank))
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(attempt / str(rank) / "error.json"))


def test_an_error_only_a_later_rank_meets_is_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row in rank 1's share: rank 0 never ends on it (the launcher stops it), so rank 1
    must print, where printing on rank 0 only would print nothing."""
    as_process(monkeypatch, tmp_path, 1)
    assert report(ValueError("rows.jsonl, line 7: field 'answer' is empty")) == 2
    assert capsys.readouterr().err == "error: rows.jsonl, line 7: field 'answer' is empty\n"


def test_every_process_ending_on_the_same_error_prints_it_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for rank in (1, 0):
        as_process(monkeypatch, tmp_path, rank)
        report(ValueError("run.yaml: limit: expected a number, got True"))
    assert capsys.readouterr().err == "error: run.yaml: limit: expected a number, got True\n"
    assert (tmp_path / CLAIM).exists() and (tmp_path / PRINTED).exists()


def test_a_process_that_finds_the_line_claimed_waits_until_it_is_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Otherwise it could exit first and the launcher would stop the printer mid-way."""
    as_process(monkeypatch, tmp_path, 0)
    (tmp_path / CLAIM).touch()  # another process claimed the line and is printing it
    threading.Timer(0.3, (tmp_path / PRINTED).touch).start()
    started = time.monotonic()
    print_once("error: x")
    assert time.monotonic() - started >= 0.25


def test_the_wait_is_bounded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    as_process(monkeypatch, tmp_path, 0)
    monkeypatch.setattr(launch_output, "WAIT_S", 0.2)
    (tmp_path / CLAIM).touch()  # a printer that died before marking the line printed
    started = time.monotonic()
    print_once("error: x")
    assert time.monotonic() - started < 2


def test_without_the_launchers_folder_rank_zero_prints(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
    for rank in ("1", "0"):
        monkeypatch.setenv("RANK", rank)
        print_once("error: x")
    assert capsys.readouterr().err == "error: x\n"


def test_a_single_process_prints_every_time(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    print_once("error: a")
    print_once("error: a")
    assert capsys.readouterr().err == "error: a\nerror: a\n"
