"""Landlock: the kernel refuses the child any filesystem change outside its worker's directory.

Why, on top of the audit hook's path checks: those run inside the interpreter, and a program
that corrupts the interpreter's memory could switch them off; a Landlock domain is enforced by
the kernel, for every uid including root, and cannot be dropped. It is what keeps a root child
(when the Python installation is not readable by `nobody`, so the uid cannot change) from writing
anywhere. Only changes are handled (write, truncate, create, remove, rename/link); reads stay the
audit hook's business, so no library or system file a program needs can be cut off by mistake.
Where the kernel offers them, TCP bind/connect and signals or abstract unix sockets reaching
outside the domain are refused too.

The ruleset is built once per worker (`prepare`), for the worker's own directory, which holds
only the job running now; each child merely enforces it (`enforce`). Needs Linux >= 5.13 with
Landlock enabled; its syscall numbers are the same on every architecture, but only x86-64 was
tried (arm64 is allowed too); elsewhere `prepare` returns None.
"""

import ctypes
import os
import struct
import sys

from . import native

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_WRITE_FILE = 1 << 1
_CHANGES_ABI1 = (
    _WRITE_FILE
    | (1 << 4)  # REMOVE_DIR
    | (1 << 5)  # REMOVE_FILE
    | (1 << 6)  # MAKE_CHAR
    | (1 << 7)  # MAKE_DIR
    | (1 << 8)  # MAKE_REG
    | (1 << 9)  # MAKE_SOCK
    | (1 << 10)  # MAKE_FIFO
    | (1 << 11)  # MAKE_BLOCK
    | (1 << 12)  # MAKE_SYM
)
_REFER = 1 << 13  # ABI 2: rename/link across directories
_TRUNCATE = 1 << 14  # ABI 3
_NET_BIND_AND_CONNECT_TCP = (1 << 0) | (1 << 1)  # ABI 4
_SCOPE_ABSTRACT_UNIX_AND_SIGNAL = (1 << 0) | (1 << 1)  # ABI 6
_FILE_ONLY_RIGHTS = _WRITE_FILE | _TRUNCATE  # what a rule on a single file may grant
WRITABLE_FILES = ("/dev/null",)


def abi_version() -> int:
    """The Landlock ABI the kernel offers; 0 when there is none (or it cannot be asked)."""
    if not sys.platform.startswith("linux") or os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    if native.libc() is None:
        return 0
    return max(native.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION), 0)


def _handled_changes(abi: int) -> int:
    return _CHANGES_ABI1 | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)


def _add_path_rule(ruleset_fd: int, path: str, allowed: int) -> None:
    path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, path_fd), 12)
        if native.syscall(_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, rule, 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path!r}) failed")
    finally:
        os.close(path_fd)


def prepare(writable_dir: str) -> int | None:
    """A ruleset descriptor allowing changes only beneath `writable_dir` (and writing to
    /dev/null); None where Landlock is unavailable. Call in the worker, before any fork."""
    abi = abi_version()
    if abi < 1:
        return None
    handled = _handled_changes(abi)
    fields = [handled]
    if abi >= 4:
        fields.append(_NET_BIND_AND_CONNECT_TCP)
    if abi >= 6:
        fields.append(_SCOPE_ABSTRACT_UNIX_AND_SIGNAL)
    attr = ctypes.create_string_buffer(struct.pack(f"={len(fields)}Q", *fields), 8 * len(fields))
    ruleset_fd = native.syscall(_CREATE_RULESET, attr, len(attr), 0)
    if ruleset_fd < 0:
        return None
    try:
        _add_path_rule(ruleset_fd, writable_dir, handled)
        for path in WRITABLE_FILES:
            _add_path_rule(ruleset_fd, path, handled & _FILE_ONLY_RIGHTS)
    except OSError:
        os.close(ruleset_fd)
        return None
    return ruleset_fd


def enforce(ruleset_fd: int) -> None:
    """Restrict the calling process (and its future children) for good; OSError if refused."""
    native.set_no_new_privs()
    if native.syscall(_RESTRICT_SELF, ruleset_fd, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
