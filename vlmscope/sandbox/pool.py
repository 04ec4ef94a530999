"""Sandbox workers seen from the parent: a thread-safe pool, `run_program` and `run_programs`.

Each worker is a long-lived confined interpreter (see `_inside.zygote`) that runs one job at a
time by forking a fresh child for it; the pool keeps up to `max_workers` of them and hands each
call an idle one, so concurrency is simply "threads calling `run`". Workers start lazily; the
first start also decides which launch prefix (namespaces or not) this machine allows.
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import vlmscope.sandbox.launcher as launcher

from ._inside.files import remove_tree
from ._inside.wire import read_frame, write_frame
from .jobs import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT_S,
    Isolation,
    ProgramJob,
    SandboxResult,
)

START_TIMEOUT_S = 20.0
BACKSTOP_S = 10.0  # a worker that is this late past a job's own timeout is presumed hung


class SandboxUnavailable(RuntimeError):
    """No sandbox worker could be started with the requested isolation."""


def _failed(reason: str) -> SandboxResult:
    return SandboxResult("", "", None, False, f"sandbox failure: {reason}", 0.0)


def _worker_environment() -> dict[str, str]:
    environment = dict(launcher.WORKER_ENVIRONMENT)
    # Not a secret, and some interpreters cannot even start without it. Programs never see it:
    # the child replaces its whole environment before running them.
    if "LD_LIBRARY_PATH" in os.environ:
        environment["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    return environment


class _Worker:
    """One worker process and its two protocol pipes; used by one thread at a time."""

    def __init__(self, prefix: tuple[str, ...], base_dir: str) -> None:
        self.prefix = prefix
        self._process = subprocess.Popen(
            launcher.worker_command(prefix),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_worker_environment(),
            cwd=base_dir,
            start_new_session=True,  # a Ctrl-C in the terminal is the parent's to handle
        )
        assert self._process.stdin is not None and self._process.stdout is not None
        self._command_fd = self._process.stdin.fileno()
        self._reply_fd = self._process.stdout.fileno()
        self.alive = True

    def _reply(self, timeout_s: float) -> dict[str, Any] | None:
        poller = select.poll()  # not select(): the parent may hold more than 1024 descriptors
        poller.register(self._reply_fd, select.POLLIN)
        if not poller.poll(timeout_s * 1000):
            return None
        try:
            return read_frame(self._reply_fd)
        except (OSError, ValueError):
            return None

    def start(self, settings: dict[str, Any]) -> Isolation | None:
        """Send the settings; the isolation the worker reports, or None if it did not start."""
        try:
            write_frame(self._command_fd, settings)
        except OSError:
            self.close()
            return None
        hello = self._reply(START_TIMEOUT_S)
        if hello is None or not hello.get("ready"):
            self.close()
            return None
        return Isolation(
            namespaces=tuple(hello["namespaces"]),
            pid_namespace_init=bool(hello["pid_namespace_init"]),
            uid=int(hello["uid"]),
            drop_to_uid=hello["drop_to_uid"],
            seccomp=bool(hello["seccomp"]),
            landlock=bool(hello["landlock"]),
            launcher=tuple(os.path.basename(part) for part in self.prefix),
        )

    def run(self, job: ProgramJob) -> SandboxResult:
        frame = {
            "code": job.code,
            "stdin": job.stdin,
            "timeout_s": job.timeout_s,
            "memory_mb": job.memory_mb,
            "max_output_bytes": job.max_output_bytes,
        }
        try:
            write_frame(self._command_fd, frame)
        except OSError:
            self.close()
            return _failed("the sandbox worker exited")
        reply = self._reply(job.timeout_s + BACKSTOP_S)
        if reply is None:
            self.close()
            return _failed("the sandbox worker stopped answering")
        return SandboxResult(
            stdout=reply["stdout"],
            stderr=reply["stderr"],
            returncode=reply["returncode"],
            timed_out=bool(reply["timed_out"]),
            error=reply["error"],
            wall_s=float(reply["wall_s"]),
        )

    def close(self) -> None:
        """End the worker: EOF first (it cleans up), SIGKILL if it does not go."""
        self.alive = False
        for stream in (self._process.stdin, self._process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self._process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self._process.kill()  # with --kill-child this also kills the worker under unshare
            self._process.wait()


def default_workers() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 2
    return max(2, min(cpus, 32))


class SandboxPool:
    """Up to `max_workers` sandbox workers, shared by any number of threads.

    `isolation`: "auto" uses Linux namespaces where `unshare` allows it and falls back to the
    in-process layers; "namespaces" refuses to run without them; "process" never uses them.
    Use as a context manager or call `close()`; the module-level default pool closes at exit.
    """

    def __init__(
        self, max_workers: int | None = None, *, isolation: launcher.IsolationMode = "auto"
    ) -> None:
        self.max_workers = max_workers or default_workers()
        self._mode: launcher.IsolationMode = isolation
        self._available = threading.Condition()
        self._idle: list[_Worker] = []
        self._count = 0
        self._closed = False
        self._probe_lock = threading.Lock()
        self._prefix: tuple[str, ...] | None = None
        self._isolation: Isolation | None = None
        self._base_dir = os.path.realpath(tempfile.mkdtemp(prefix="vlmscope-sandbox-"))

    def _start(self, prefix: tuple[str, ...]) -> _Worker | None:
        settings = launcher.worker_settings(self._base_dir, prefix)
        if settings["drop_to_uid"] is not None:
            os.chmod(self._base_dir, 0o711)  # the unprivileged uid must reach its job dir
        worker = _Worker(prefix, self._base_dir)
        isolation = worker.start(settings)
        if isolation is None:
            return None
        self._isolation = self._isolation or isolation
        return worker

    def _spawn(self) -> _Worker:
        """A started worker; the first start picks the strongest prefix that works here (later
        ones reuse it and may start concurrently)."""
        if self._prefix is None:
            with self._probe_lock:
                if self._prefix is None:
                    for prefix in launcher.launch_prefixes(self._mode):
                        worker = self._start(prefix)
                        if worker is not None:
                            self._prefix = prefix
                            return worker
                    raise SandboxUnavailable(
                        f"no sandbox worker could start (isolation={self._mode!r})"
                    )
        worker = self._start(self._prefix)
        if worker is None:
            raise SandboxUnavailable(f"a sandbox worker failed to start with {self._prefix}")
        return worker

    def _acquire(self) -> _Worker:
        with self._available:
            while True:
                if self._closed:
                    raise RuntimeError("the sandbox pool is closed")
                if self._idle:
                    return self._idle.pop()
                if self._count < self.max_workers:
                    self._count += 1
                    break
                self._available.wait()
        try:
            return self._spawn()
        except BaseException:
            with self._available:
                self._count -= 1
                self._available.notify()
            raise

    def _release(self, worker: _Worker) -> None:
        with self._available:
            keep = worker.alive and not self._closed
            if keep:
                self._idle.append(worker)
            else:
                self._count -= 1
            self._available.notify()
        if not keep and worker.alive:
            worker.close()  # outside the lock: it may wait for the worker to exit

    @property
    def isolation(self) -> Isolation:
        """The isolation the workers got (starts one if none has started yet)."""
        if self._isolation is None:
            self._release(self._acquire())
        assert self._isolation is not None
        return self._isolation

    def run(self, job: ProgramJob) -> SandboxResult:
        worker = self._acquire()
        try:
            return worker.run(job)
        finally:
            self._release(worker)

    def map(
        self, jobs: Sequence[ProgramJob], concurrency: int | None = None
    ) -> list[SandboxResult]:
        """Results in the order of `jobs`, running up to `concurrency` (default: all workers)."""
        if not jobs:
            return []
        threads = min(concurrency or self.max_workers, len(jobs))
        if threads <= 1:
            return [self.run(job) for job in jobs]
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sandbox") as executor:
            return list(executor.map(self.run, jobs))

    def close(self) -> None:
        with self._available:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._available.notify_all()
        for worker in idle:
            worker.close()
        remove_tree(self._base_dir)

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_default_pool: SandboxPool | None = None
_default_pool_lock = threading.Lock()


def default_pool() -> SandboxPool:
    """The process-wide pool `run_program` and `run_programs` use (closed at interpreter exit)."""
    global _default_pool
    with _default_pool_lock:
        if _default_pool is None:
            _default_pool = SandboxPool()
            atexit.register(_default_pool.close)
        return _default_pool


def run_program(
    code: str,
    stdin: str = "",
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> SandboxResult:
    """Run untrusted Python `code` in the sandbox with `stdin` as its standard input."""
    return default_pool().run(
        ProgramJob(code=code, stdin=stdin, timeout_s=timeout_s, memory_mb=memory_mb)
    )


def run_programs(
    jobs: Iterable[ProgramJob], *, workers: int | None = None, pool: SandboxPool | None = None
) -> list[SandboxResult]:
    """Run many programs concurrently; results in input order.

    `workers` bounds the concurrency (default: the pool's size, one per CPU for the default pool).
    """
    return (pool or default_pool()).map(list(jobs), concurrency=workers)
