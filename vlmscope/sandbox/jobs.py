"""What goes into the sandbox (`ProgramJob`) and what comes out (`SandboxResult`, `Isolation`)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MEMORY_MB = 512
DEFAULT_MAX_OUTPUT_BYTES = 8 << 20


@dataclass(frozen=True)
class ProgramJob:
    """One Python program to run, with its stdin and limits.

    `timeout_s` is wall-clock time (CPU time is capped at the next whole second plus one);
    `memory_mb` caps the address space (RLIMIT_AS), which includes the interpreter's own ~30 MB;
    stdout and stderr together may not exceed `max_output_bytes`.
    """

    code: str
    stdin: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s}")
        if self.memory_mb <= 0:
            raise ValueError(f"memory_mb must be positive, got {self.memory_mb}")
        if self.max_output_bytes <= 0:
            raise ValueError(f"max_output_bytes must be positive, got {self.max_output_bytes}")


@dataclass(frozen=True)
class SandboxResult:
    """How a sandboxed run ended.

    `returncode` is the exit status (negative: killed by that signal), None when the sandbox
    ended the run itself (wall-clock timeout, output limit) or could not run it. `error` is None
    for a program that ran to its own end, whatever its status; otherwise it says why the run was
    cut short (timeout, CPU/file-size limit, signal, sandbox failure). A Python exception in the
    program is not an error here: it is status 1 with the traceback on stderr, as for `python`.
    """

    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool
    error: str | None
    wall_s: float

    @property
    def ok(self) -> bool:
        """The program ran to its end and exited with status 0."""
        return self.error is None and self.returncode == 0


@dataclass(frozen=True)
class Isolation:
    """The confinement a sandbox worker reported for itself after it started.

    `namespaces`: Linux namespaces it does not share with the parent ("net": no network
    interfaces at all; "pid": programs see only themselves and are all killed with the worker;
    "mnt": a private /proc; "user": mapped-root user namespace for unprivileged runs).
    `pid_namespace_init`: the worker is PID 1 there, so after each job it kills every leftover.
    `drop_to_uid`: programs run as this unprivileged uid (None: as the worker's own uid).
    `seccomp`: the kernel refuses process creation, exec and sockets to programs.
    `landlock`: the kernel refuses programs any filesystem change outside their job directory
    (and TCP bind/connect, where the kernel's Landlock is recent enough).
    The audit hook, resource limits, scrubbed environment, isolated interpreter and private job
    directory always apply.
    """

    namespaces: tuple[str, ...]
    pid_namespace_init: bool
    uid: int
    drop_to_uid: int | None
    seccomp: bool
    landlock: bool
    launcher: tuple[str, ...]

    @property
    def network_blocked_by_kernel(self) -> bool:
        return "net" in self.namespaces or self.seccomp

    @property
    def writes_confined_by_kernel(self) -> bool:
        return self.landlock
