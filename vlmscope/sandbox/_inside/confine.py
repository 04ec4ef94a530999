"""What a freshly forked child does to itself before it runs the program.

Order matters: the Landlock domain first (its ruleset descriptor is about to be closed), then
descriptors and working directory, resource limits, the uid change (after it the child could no
longer lower some limits), the seccomp filter (it forbids what the steps before needed), and the
audit hook last, right before the program, because it would refuse the setup's own operations.
"""

import io
import math
import os
import resource
import sys
from dataclasses import dataclass
from typing import NoReturn

from . import audit, harness, landlock, native, seccomp

EXIT_SETUP_FAILED = 125
FILE_SIZE_LIMIT_BYTES = 16 << 20
OPEN_FILES_LIMIT = 64
PROCESS_LIMIT = 64
ENVIRONMENT_CONSTANTS = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@dataclass(frozen=True)
class ChildPlan:
    """One job's confinement, decided by the worker before it forks."""

    code: str
    job_dir: str
    timeout_s: float
    memory_mb: int
    read_roots: tuple[str, ...]
    drop_to_uid: int | None
    drop_to_gid: int | None
    use_seccomp: bool
    landlock_ruleset_fd: int | None


def _wire_descriptors(stdin_fd: int, stdout_fd: int, stderr_fd: int) -> None:
    """Make the job's descriptors 0, 1, 2 and close every other one (worker pipes included)."""
    for target, source in ((0, stdin_fd), (1, stdout_fd), (2, stderr_fd)):
        os.dup2(source, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))


def prepare_worker() -> None:
    """Done once in the worker, so each child inherits it instead of paying for it: the
    environment becomes the constants (nothing from the parent), and the text streams the
    children will use are built (over descriptor numbers 0-2, which each child re-points)."""
    global _job_streams
    os.environ.clear()
    os.environ.update(ENVIRONMENT_CONSTANTS)
    # They live as long as the process, hence no context manager.
    _job_streams = (
        open(0, encoding="utf-8", closefd=False),  # noqa: SIM115
        open(1, "w", encoding="utf-8", closefd=False),  # noqa: SIM115
        open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False),  # noqa: SIM115
    )


_job_streams: tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper] | None = None


def _point_environment_at(job_dir: str) -> None:
    os.environ["HOME"] = job_dir
    os.environ["TMPDIR"] = job_dir


def _apply_limits(plan: ChildPlan) -> None:
    cpu_seconds = math.ceil(plan.timeout_s) + 1
    memory_bytes = plan.memory_mb << 20
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT_BYTES, FILE_SIZE_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES_LIMIT, OPEN_FILES_LIMIT))
    # RLIMIT_NPROC counts every process of the (real) user, and root ignores it. It is the
    # fork-bomb stop only where seccomp is missing; with seccomp it would just make threads fail
    # at random on a busy account, so it is set only for the dedicated unprivileged uid.
    if plan.drop_to_uid is not None or not plan.use_seccomp:
        resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))


def _drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)


def _use_job_streams() -> None:
    """Text streams over the job's descriptors (the worker's own point at /dev/null)."""
    if _job_streams is None:
        raise RuntimeError("prepare_worker() was not called")
    sys.stdin, sys.stdout, sys.stderr = _job_streams
    for name, stream in zip(("__stdin__", "__stdout__", "__stderr__"), _job_streams, strict=True):
        setattr(sys, name, stream)  # what a program reaching for the "real" streams should get


def _forget_native_access() -> None:
    """The worker loaded ctypes for seccomp and Landlock; drop it so that a program's
    `import ctypes` is a fresh import again, which the audit hook refuses."""
    native.forget()
    for name in [n for n in sys.modules if n in ("ctypes", "_ctypes") or n.startswith("ctypes.")]:
        del sys.modules[name]


def _refuse_to_spawn(*args: object, **kwargs: object) -> NoReturn:
    raise PermissionError("sandbox: starting processes is not allowed")


def _disarm_process_spawning() -> None:
    """`_posixsubprocess.fork_exec` forks and execs without an audit event; the worker imported
    it already (so loading it again is refused), and here both references to it are replaced."""
    for module_name, attribute in (("_posixsubprocess", "fork_exec"), ("subprocess", "_fork_exec")):
        module = sys.modules.get(module_name)
        if module is not None and hasattr(module, attribute):
            setattr(module, attribute, _refuse_to_spawn)


def run_child(plan: ChildPlan, stdin_fd: int, stdout_fd: int, stderr_fd: int) -> NoReturn:
    """Confine this (just forked) process, run the program, and exit; never returns."""
    try:
        os.setsid()  # own process group: the worker kills the whole group at the end
        if plan.landlock_ruleset_fd is not None:
            landlock.enforce(plan.landlock_ruleset_fd)  # before its descriptor is closed below
        _wire_descriptors(stdin_fd, stdout_fd, stderr_fd)
        os.chdir(plan.job_dir)
        _point_environment_at(plan.job_dir)
        _apply_limits(plan)
        if plan.drop_to_uid is not None and plan.drop_to_gid is not None:
            _drop_privileges(plan.drop_to_uid, plan.drop_to_gid)
        _use_job_streams()
        if plan.use_seccomp:
            seccomp.install(os.getpid())
        _forget_native_access()
        _disarm_process_spawning()
        audit.install(plan.job_dir, plan.read_roots)
    except BaseException as error:
        try:
            os.write(2, f"sandbox setup failed: {error!r}\n".encode("utf-8", "replace"))
        finally:
            os._exit(EXIT_SETUP_FAILED)
    status = EXIT_SETUP_FAILED
    try:
        status = harness.run_main(plan.code)
    finally:
        os._exit(status)
