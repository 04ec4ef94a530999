"""One writer per output folder.

Two runs on the same output folder would both generate everything and both write the same result
files. The first run's main process holds an exclusive `flock` on `OUTPUT_DIR/.vlmscope.lock`
for the whole run and writes who it is (pid, host, start time) into it; a second run finds the
lock taken and stops with that holder named. The kernel drops a `flock` when its process dies,
so a run that was killed leaves no lock behind, only its note: the next run takes the folder
over and says whose stale note it replaced. A run stopped with Ctrl-C leaves its note too,
marked `interrupted_at`, so the run that resumes it says so. A run that finishes removes the
file: it unlinks it while still holding the lock, and a run that locked the file just before
it went finds, on checking, that the path no longer leads to the file it locked and starts over
with the new one, so two runs never hold two files. The lock is opened without following a
symbolic link and must be a regular file (`vlmscope.owned_files`): a link planted there is
refused, never written through.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vlmscope.input_errors import InputError
from vlmscope.owned_files import open_owned

LOCK_NAME = ".vlmscope.lock"
log = logging.getLogger(__name__)


class OutputLocked(RuntimeError, InputError):
    """Another run is writing to the same output folder."""


@contextmanager
def output_lock(output_dir: str | Path) -> Iterator[dict[str, Any] | None]:
    """Hold the folder's lock for the `with` block; yields the stale note of a killed run, if any.

    Raises `OutputLocked` naming the holder when another live run has it.
    """
    folder = Path(output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_NAME
    fd = _locked(path, folder)
    try:
        stale = _read_note(fd)
        if stale:
            log.warning("%s", resuming_message(folder, stale))
        mine = _note()
        _write_note(fd, mine)
        interrupted = False
        try:
            yield stale or None
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            if interrupted:  # kept, so the run that resumes this one says what it resumes
                _write_note(fd, {**mine, "interrupted_at": _now()})
            else:
                path.unlink(missing_ok=True)  # still locked: see the module doc
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _locked(path: Path, folder: Path) -> int:
    """An open descriptor of the lock file at `path`, exclusively locked; `OutputLocked` when
    another run holds it. A file unlinked by the run that held it is left for the new one."""
    while True:
        fd = open_owned(path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            note = _read_note(fd)
            os.close(fd)
            raise OutputLocked(_held_message(folder, note)) from None
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = -1
        if current == os.fstat(fd).st_ino:
            return fd
        os.close(fd)  # the holder finished and removed it meanwhile: lock the new file


def resuming_message(folder: Path, stale: dict[str, Any]) -> str:
    """What a run taking over a stale note says: whose run it resumes, and how it stopped."""
    who = f"pid {stale.get('pid')} on {stale.get('host')}, started {stale.get('started_at')}"
    if stale.get("interrupted_at"):
        how = f"was stopped with Ctrl-C at {stale['interrupted_at']}"
    else:
        how = "stopped without finishing"
    return (
        f"resuming {folder}: the run before ({who}) {how}; every answer and judgment it "
        "finished is reused from the cache, the rest is asked now"
    )


def _note() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(), "started_at": _now()}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _read_note(fd: int) -> dict[str, Any]:
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 4096)
    try:
        note = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {"unreadable": raw[:80].decode("utf-8", "replace")}
    return note if isinstance(note, dict) else {}


def _write_note(fd: int, note: dict[str, Any] | None) -> None:
    os.ftruncate(fd, 0)
    if note is not None:
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps(note).encode())
    os.fsync(fd)


def _held_message(folder: Path, holder: dict[str, Any]) -> str:
    who = (
        f"pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started_at')}"
        if holder.get("pid")
        else "a process that has not written its note yet"
    )
    return (
        f"{folder} is being written by another vlmscope run ({who}); wait for it to finish, "
        "or give this run another --output-dir"
    )
