"""Run model-written Python safely: a sandbox for code-executing metrics.

`run_program(code, stdin)` runs one program; `run_programs(jobs)` / `SandboxPool.map` run many
concurrently; `judge_program(code, test_cases)` scores a program the way MEGA-Bench's official
`program_judge` does. `python -m vlmscope.sandbox.benchmark` measures the per-program cost.

Every program runs in a freshly forked child of a pre-started worker interpreter, under these
layers (each documented where it is implemented):

| layer | applies | stops |
|---|---|---|
| worker is `python -I -S -B`; environment = PATH, LANG (+ thread-count constants) | always | API keys or any other parent variable reaching the program; PYTHON* variables, user site |
| fresh job directory as cwd/HOME/TMPDIR, deleted afterwards | always | leftovers between programs |
| RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE | always | CPU burners, memory bombs, disk fillers |
| wall-clock timeout, SIGKILL of the child's process group | always | sleepers, anything the CPU limit misses |
| audit hook (`_inside/audit.py`) | always (any CPython platform) | sockets, process creation, signals, ctypes, writes outside the job dir, reads outside the job dir / Python install / a few system files |
| seccomp filter (`_inside/seccomp.py`) | Linux x86-64 | in the kernel: fork/vfork/clone (threads allowed), exec, socket, ptrace, mount, chmod/chown, kill of others, ... |
| Landlock (`_inside/landlock.py`) | Linux >= 5.13 with Landlock on | in the kernel: any file change outside the worker's directory, even as root; TCP bind/connect |
| network + PID + mount namespaces via `unshare` | Linux where `unshare` works (root, or unprivileged user namespaces) | any network at all; seeing host processes (private /proc); leftovers outliving their job (the worker is PID 1 and kills everything after each job) |
| switch to uid `nobody` | worker is real root and the Python install is readable by others | everything file permissions forbid `nobody`; RLIMIT_NPROC then bounds processes |

`SandboxPool.isolation` says which optional layers a machine gave. Residual risk: the worker
loads ctypes (for seccomp and Landlock), so its types stay reachable (`object.__subclasses__()`)
even though importing ctypes is refused; a program written to corrupt interpreter memory with
them can switch the audit hook off. What it could then still do is read files its uid may read
(and print them): the kernel layers keep refusing processes, exec, network and writes.
"""

from .jobs import Isolation, ProgramJob, SandboxResult
from .judge import (
    CaseOutcome,
    judge_program,
    judge_programs,
    judge_programs_detailed,
)
from .pool import SandboxPool, SandboxUnavailable, default_pool, run_program, run_programs

__all__ = [
    "Isolation",
    "ProgramJob",
    "SandboxPool",
    "SandboxResult",
    "SandboxUnavailable",
    "CaseOutcome",
    "default_pool",
    "judge_program",
    "judge_programs",
    "judge_programs_detailed",
    "run_program",
    "run_programs",
]
