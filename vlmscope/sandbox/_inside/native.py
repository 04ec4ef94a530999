"""The C library, for the system calls Python does not expose (prctl, Landlock's syscalls).

Loaded once, in the worker, before any fork: a child drops its handle (`forget`) and cannot load
it again, because importing ctypes is refused there (see `audit`).
"""

import ctypes
import sys

PR_SET_NO_NEW_PRIVS = 38

_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL | None:
    """The loaded C library with the prototypes used here; None where it cannot be had."""
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            handle = ctypes.CDLL(None, use_errno=True)
            handle.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
            handle.prctl.restype = ctypes.c_int
            handle.syscall.restype = ctypes.c_long
        except (OSError, AttributeError):
            return None
        _libc = handle
    return _libc


def _loaded() -> ctypes.CDLL:
    if _libc is None:
        raise OSError("the C library is not loaded (or was dropped in this child)")
    return _libc


def syscall(number: int, *args: object) -> int:
    """syscall(2), every integer passed as a full C long (the function is variadic)."""
    converted = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return int(_loaded().syscall(ctypes.c_long(number), *converted))


def prctl(option: int, *arguments: int) -> None:
    """prctl(option, arguments..., 0...); raises OSError when the kernel refuses."""
    padded = (*arguments, 0, 0, 0, 0)[:4]
    if _loaded().prctl(option, *padded) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def set_no_new_privs() -> None:
    """Required before an unprivileged process may install seccomp filters or Landlock domains."""
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def forget() -> None:
    global _libc
    _libc = None
