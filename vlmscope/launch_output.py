"""A line that a multi-process launch prints once, whichever of its processes ends first.

Under `accelerate launch` / `torchrun`, N copies of the program read the same config and the
same data, so a bad input (or a budget stop) ends every one of them with the same message. Two
things go wrong if each process simply prints and exits, or if only rank 0 prints:
- every process prints: the user reads the line N times;
- only rank 0 prints: when another process exits first, the launcher stops the rest at once
  (SIGTERM) and rank 0 may die before its line is out; and an error only one process meets
  (a row in its share of the requests) is never printed at all.

So the first process to end with a message claims the line (an exclusive file in the launcher's
own folder for this attempt, which the launcher removes), prints it, then marks it printed; a
process that finds the line claimed waits (a few seconds at most) until it is printed before it
exits, so the launcher cannot stop the printer mid-way. Without a launcher, or under one that
gives no such folder, the process prints when it is rank 0 (the old rule).

The launcher then prints its own failure report (`ChildFailedError`, naming the exit status of
the first process that failed); that report is the launcher's and cannot be silenced from here.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

CLAIM = "vlmscope-line.claimed"
PRINTED = "vlmscope-line.printed"
WAIT_S = 5.0


def print_once(line: str) -> None:
    """Print `line` on stderr, once per launch (see the module docstring)."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        _print(line)
        return
    folder = launch_folder()
    if folder is None:
        if os.environ.get("RANK", "0") in ("", "0"):
            _print(line)
        return
    if _claim(folder / CLAIM):
        _print(line)
        _mark(folder / PRINTED)
    else:
        _wait_for(folder / PRINTED)


def launch_folder() -> Path | None:
    """The folder torch's elastic launcher made for this attempt, shared by its processes on
    this machine (each process's error file lies in `<attempt>/<local rank>/error.json`)."""
    error_file = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not error_file:
        return None
    folder = Path(error_file).parent.parent
    return folder if folder.is_dir() else None


def _claim(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return False
    except OSError:  # the folder went away or is not writable: print rather than lose the line
        return True
    os.close(fd)
    return True


def _mark(path: Path) -> None:
    # should it fail, a waiting process gives up after WAIT_S; the line is out either way
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
