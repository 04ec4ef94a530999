"""The child's audit hook (PEP 578): the portable, in-interpreter confinement layer.

It refuses, before the operation happens: creating sockets and any other `socket.*` event;
starting processes (`os.fork`, `os.system`, `os.exec*`, `os.posix_spawn`, `subprocess.Popen`, ...);
signalling other processes; importing ctypes or cffi (raw memory access: with it a program can
switch the hook off) or a fresh _posixsubprocess (it forks and execs unaudited); tracing/profiling
hooks and gc walks (the ways to reach or jump over the hook itself);
opening a file for writing, or creating, removing, renaming, chmod-ing anything, outside the job
directory; reading files outside the job directory, the Python installation and a few system
files (so a program cannot read credentials lying on disk or another process's environment in
/proc). Symlinks and hard links cannot be made at all, so no link can lead a write out of the
job directory.

Audit hooks are not a security boundary against code that attacks the interpreter itself (PEP 578
says so); they stop ordinary and simply hostile programs on any platform. The kernel layers
(seccomp, namespaces, rlimits, a different uid) are what bind a determined program. To keep the
hook hard to subvert from Python, everything it uses is captured in its closure when it is made
(user code can rebind `os.getcwd` or `builtins.isinstance`, not a closure), it only trusts paths
that are exactly `str`, `bytes` or `int` (a user `PathLike` could answer differently twice), and
it never calls user code.
"""

from __future__ import annotations

import builtins
import os
import socket
import sys
from collections.abc import Callable, Iterable
from typing import Any

# Events that change the filesystem -> positions of (path, dir_fd) pairs in the event's arguments.
# A dir_fd of -1 (or AT_FDCWD) means none was given.
_FILE_CHANGE_EVENTS: dict[str, tuple[tuple[int, int | None], ...]] = {
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.mkdir": ((0, 2),),
    "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),),
    "os.utime": ((0, 3),),
    "os.truncate": ((0, None),),
    "os.chflags": ((0, None),),
    "os.lchflags": ((0, None),),
    "os.setxattr": ((0, None),),
    "os.removexattr": ((0, None),),
    "os.rename": ((0, 2), (1, 3)),
    "sqlite3.connect": ((0, None),),
}
_PROCESS_EVENTS = frozenset(
    {
        "os.system", "os.exec", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn",
        "os.startfile", "subprocess.Popen", "os.kill", "os.killpg", "signal.pthread_kill",
        "os.symlink", "os.link", "sys.settrace", "sys.setprofile", "gc.get_objects",
        "gc.get_referrers", "gc.get_referents", "sys.monitoring.register_callback",
    }
)  # fmt: skip
# Checked on fresh loads only (a cached module raises no "import" event). ctypes and cffi give raw
# memory access, which no audit event covers (a ctypes Union turns an int into a pointer), so a
# library that needs ctypes at import (sympy does; numpy does without it) cannot be imported.
# _posixsubprocess: the worker imported it already, with `fork_exec` disarmed in each child, so
# `import subprocess` works; a fresh load would bring fork_exec back. readline and dbm write
# files from C without audit events.
_DENIED_MODULES = frozenset(
    {"ctypes", "_ctypes", "cffi", "_cffi_backend", "_posixsubprocess", "readline", "_dbm", "_gdbm"}
)
_DENIED_PREFIXES = ("socket.", "ctypes.", "syslog.", "sqlite3.enable_load", "sqlite3.load")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Files outside the Python installation that programs (or Python itself) legitimately read.
SYSTEM_READABLE = (
    "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/stdin", "/dev/fd/0",
    "/etc/localtime", "/etc/timezone", "/usr/share/zoneinfo", "/etc/mime.types",
    "/proc/self/stat", "/proc/self/statm", "/proc/self/status", "/proc/cpuinfo", "/proc/meminfo",
)  # fmt: skip
WRITABLE_DEVICES = ("/dev/null",)


def make_hook(job_dir: str, read_roots: Iterable[str]) -> Callable[[str, tuple[Any, ...]], None]:
    """The hook for a child whose only writable place is `job_dir` (an absolute, resolved path)."""
    _type, _str, _bytes, _int, _repr = builtins.type, str, bytes, int, repr
    _getcwd = os.getcwd
    unix_family = socket.AF_UNIX
    _permission_error, _import_error = PermissionError, ImportError
    writable = (job_dir, *WRITABLE_DEVICES)
    readable = (job_dir, *read_roots, *SYSTEM_READABLE)
    # A private copy: the module-level dict is reachable from user code, this one is not.
    file_change_events, process_events = dict(_FILE_CHANGE_EVENTS), _PROCESS_EVENTS
    denied_modules, denied_prefixes, write_flags = _DENIED_MODULES, _DENIED_PREFIXES, _WRITE_FLAGS

    def text_of(path: object) -> str | None:
        """The path as text when it is exactly str or bytes (anything else is not trusted)."""
        if _type(path) is _str:
            return path  # type: ignore[return-value]
        if _type(path) is _bytes:
            return path.decode("utf-8", "surrogateescape")  # type: ignore[attr-defined]
        return None

    def absolute(text: str) -> str:
        """Lexically normalised absolute path (symlinks cannot be created, see module doc)."""
        if not text.startswith("/"):
            text = _getcwd() + "/" + text
        parts: list[str] = []
        for part in text.split("/"):
            if part == "..":
                if parts:
                    parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        return "/" + "/".join(parts)

    def inside(path: str, roots: tuple[str, ...]) -> bool:
        for root in roots:  # noqa: SIM110 - any() is a builtin a program can rebind
            if path == root or path.startswith(root + "/"):
                return True
        return False

    def refuse(verb: str, path: object) -> None:
        shown = text_of(path)
        described = _repr(shown) if shown is not None else "a " + _type(path).__name__
        raise _permission_error(f"sandbox: {verb} {described} is not allowed")

    def check_path(path: object, for_write: bool, dir_fd: object = None) -> None:
        if _type(path) is _int:
            return  # an already open descriptor: its mode was checked when it was opened
        text = text_of(path)
        if text is None:
            refuse("writing" if for_write else "reading", path)
            return
        if dir_fd not in (None, -1, -100) and not text.startswith("/"):
            refuse("using a directory descriptor for", path)
        if text == ":memory:" or (text == "" and not for_write):
            return
        if not inside(absolute(text), writable if for_write else readable):
            refuse("writing" if for_write else "reading", path)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = args[0], args[1], args[2]
            for_write = _type(flags) is not _int or (flags & write_flags) != 0
            if _type(mode) is _str:
                for letter in "wax+":
                    if letter in mode:
                        for_write = True
            elif mode is None and _type(path) is not _int:
                text = text_of(path)
                if text is None or not text.startswith("/"):
                    refuse("os.open with a relative path (its dir_fd is unseen):", path)
            check_path(path, for_write)
        elif event in file_change_events:
            for path_index, dir_fd_index in file_change_events[event]:
                dir_fd = None if dir_fd_index is None else args[dir_fd_index]
                check_path(args[path_index], True, dir_fd)
        elif event == "os.listdir" or event == "os.scandir":
            if args[0] is not None:
                check_path(args[0], False)
        elif event == "import":
            name = args[0]
            if _type(name) is not _str or name.split(".")[0] in denied_modules:
                raise _import_error(f"sandbox: importing {name!r} is not allowed")
        elif event in process_events or event.startswith(denied_prefixes):
            if event == "socket.__new__" and args[1] == unix_family:
                return  # asyncio wraps its socketpair; seccomp refuses any new socket anyway
            raise _permission_error(f"sandbox: {event} is not allowed")

    return hook


def install(job_dir: str, read_roots: Iterable[str]) -> None:
    """Install the hook for the rest of the process's life (audit hooks cannot be removed)."""
    sys.addaudithook(make_hook(job_dir, tuple(read_roots)))
