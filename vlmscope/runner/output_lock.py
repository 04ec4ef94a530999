"""One writer per output folder.

Two runs on the same output folder would both generate everything and both write the same result
files. The first run's main process holds an exclusive `flock` on `OUTPUT_DIR/.vlmscope.lock`
for the whole run and writes who it is (pid, host, start time) into it; a second run finds the
lock taken and stops with that holder named. The kernel drops a `flock` when its process dies,
so a run that was killed leaves no lock behind, only its note: the next run takes the folder
over and says whose stale note it replaced. (The note is emptied, never deleted, on release:
deleting a lock file another process may have open would let two runs lock two inodes.) The
lock is opened without following a symbolic link and must be a regular file
(`vlmscope.owned_files`): a link planted there is refused, never written through.
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
    fd = open_owned(path, os.O_RDWR | os.O_CREAT)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputLocked(_held_message(folder, _read_note(fd))) from None
        stale = _read_note(fd)
        if stale:
            log.warning(
                "%s: taking over from a run that stopped without finishing (pid %s on %s, "
                "started %s); its cached answers are reused",
                folder,
                stale.get("pid"),
                stale.get("host"),
                stale.get("started_at"),
            )
        _write_note(fd, _note())
        try:
            yield stale or None
        finally:
            _write_note(fd, None)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _note() -> dict[str, Any]:
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


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
