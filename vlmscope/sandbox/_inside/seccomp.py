"""A seccomp filter: the kernel refuses process creation, exec, sockets and admin calls.

Why a syscall filter on top of the audit hook: audit hooks see only what Python code does through
the interpreter's own functions, and do not bind a program that goes around them; the filter is
enforced by the kernel for every instruction the child runs, needs no privileges and works with or
without namespaces. It is what stops a fork bomb when the child runs as root (root ignores
RLIMIT_NPROC). Refused calls fail with EPERM, so Python raises PermissionError.

Only x86-64 Linux is covered (syscall numbers are per architecture and only these were verified);
elsewhere `available()` is False and the other layers stand alone. `kill`/`tgkill` are allowed
only towards the child's own pid, so the worker prepares the program once and each child patches
its pid in.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

from . import native

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000
_CLONE_THREAD = 0x00010000

_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0_LOW = 16  # seccomp_data.args[0], low 32 bits on little-endian

_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# x86-64 numbers (asm/unistd_64.h). Grouped by why they are refused.
_DENIED_X86_64 = (
    # network: no socket can be created, so nothing can connect, listen or reach a unix socket
    41, 42, 43, 49, 50, 288,  # socket connect accept bind listen accept4
    # new processes and exec (clone is handled separately: threads stay allowed)
    57, 58, 59, 322,  # fork vfork execve execveat
    # looking into or steering other processes
    101, 310, 311, 438, 200, 129, 297, 424,  # ptrace process_vm_readv/writev pidfd_getfd tkill rt_(tg)sigqueueinfo pidfd_send_signal
    # mounts and namespaces
    165, 166, 155, 161, 272, 308, 428, 429, 430, 431, 432, 433, 442,
    # host-wide state a root child could otherwise change
    170, 171, 164, 227, 159, 305, 169, 167, 168, 163, 179, 172, 173, 103, 153, 135,
    # kernel modules, kexec, keys, bpf, perf, userfaultfd, fanotify, handles, device nodes
    175, 313, 176, 246, 320, 250, 248, 249, 321, 298, 323, 300, 304, 303, 133, 259, 212,
    # io_uring can perform socket and file operations out of the filter's sight
    425, 426, 427,
    # permissions, ownership and extended attributes of any file (Landlock does not cover them):
    # chmod fchmod chown fchown lchown fchmodat fchownat fchmodat2 (l/f)setxattr (l/f)removexattr
    # setxattrat removexattrat
    90, 91, 92, 93, 94, 268, 260, 452, 188, 189, 190, 197, 198, 199, 463, 466,
)  # fmt: skip
_CLONE = 56
_CLONE3 = 435
_KILL = 62
_TGKILL = 234


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _insn(code: int, k: int, jump_true: int = 0, jump_false: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jump_true, jump_false, k & 0xFFFFFFFF)


_PID_PLACEHOLDER = 0x7AB1E5ED  # stands for the child's pid in the prebuilt program


def build_filter(own_pid: int) -> bytes:
    """The BPF program (packed `struct sock_filter` array) for a child whose pid is `own_pid`."""
    deny = _RET_ERRNO | errno.EPERM
    program = [
        _insn(_LD_W_ABS, _OFFSET_ARCH),
        _insn(_JEQ_K, _AUDIT_ARCH_X86_64, 1, 0),
        _insn(_RET_K, _RET_KILL_PROCESS),  # i386/x32 entry points would bypass the numbers below
        _insn(_LD_W_ABS, _OFFSET_NR),
        _insn(_JGE_K, _X32_SYSCALL_BIT, 0, 1),
        _insn(_RET_K, _RET_KILL_PROCESS),
    ]
    for number in _DENIED_X86_64:
        program += [_insn(_JEQ_K, number, 0, 1), _insn(_RET_K, deny)]
    # clone3 hides its flags in memory the filter cannot read; ENOSYS makes libc fall back to clone.
    program += [_insn(_JEQ_K, _CLONE3, 0, 1), _insn(_RET_K, _RET_ERRNO | errno.ENOSYS)]
    program += [
        _insn(_JEQ_K, _CLONE, 0, 4),
        _insn(_LD_W_ABS, _OFFSET_ARG0_LOW),
        _insn(_JSET_K, _CLONE_THREAD, 0, 1),
        _insn(_RET_K, _RET_ALLOW),
        _insn(_RET_K, deny),
    ]
    program += [  # kill(pid, sig): only itself, its own process group (0) or -pid
        _insn(_JEQ_K, _KILL, 0, 6),
        _insn(_LD_W_ABS, _OFFSET_ARG0_LOW),
        _insn(_JEQ_K, own_pid, 3, 0),
        _insn(_JEQ_K, 0, 2, 0),
        _insn(_JEQ_K, -own_pid, 1, 0),
        _insn(_RET_K, deny),
        _insn(_RET_K, _RET_ALLOW),
    ]
    program += [  # tgkill(tgid, tid, sig): only threads of itself
        _insn(_JEQ_K, _TGKILL, 0, 4),
        _insn(_LD_W_ABS, _OFFSET_ARG0_LOW),
        _insn(_JEQ_K, own_pid, 1, 0),
        _insn(_RET_K, deny),
        _insn(_RET_K, _RET_ALLOW),
    ]
    program.append(_insn(_RET_K, _RET_ALLOW))
    return b"".join(program)


def _pid_slots(template: bytes) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Byte offsets of the placeholder pid and of its negation in the prebuilt program."""
    slots: dict[bytes, list[int]] = {}
    for value in (_PID_PLACEHOLDER, -_PID_PLACEHOLDER):
        pattern = struct.pack("=I", value & 0xFFFFFFFF)
        # a constant only ever sits in the k field: the last 4 bytes of an 8-byte instruction
        slots[pattern] = [i for i in range(4, len(template), 8) if template[i : i + 4] == pattern]
    positive, negative = slots.values()
    return tuple(positive), tuple(negative)


# Prepared once in the worker by available(): a forked child pays for every page it touches, so
# it only patches its pid into this buffer instead of assembling the program.
_program: ctypes.Array[ctypes.c_char] | None = None
_fprog: _SockFprog | None = None
_slots: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())


def _patch_pid(own_pid: int) -> None:
    assert _program is not None
    positive, negative = _slots
    for offset in positive:
        struct.pack_into("=I", _program, offset, own_pid & 0xFFFFFFFF)
    for offset in negative:
        struct.pack_into("=I", _program, offset, -own_pid & 0xFFFFFFFF)


def filter_for(own_pid: int) -> bytes:
    """The program `install(own_pid)` applies; equals `build_filter(own_pid)`."""
    if _program is None:
        return build_filter(own_pid)
    _patch_pid(own_pid)
    return bytes(_program.raw)


def available() -> bool:
    """Prepare the filter once (in the worker, before any fork); whether it can be installed."""
    global _program, _fprog, _slots
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        return False
    if native.libc() is None:
        return False
    if _program is None:
        template = build_filter(_PID_PLACEHOLDER)
        _slots = _pid_slots(template)
        _program = ctypes.create_string_buffer(template, len(template))
        _fprog = _SockFprog(len(template) // 8, ctypes.addressof(_program))
    return True


def install(own_pid: int) -> None:
    """Apply the filter to the calling process, irrevocably; raises OSError when refused."""
    if _fprog is None:
        raise OSError("seccomp: not prepared; call available() first")
    _patch_pid(own_pid)
    native.set_no_new_privs()
    native.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(_fprog))
