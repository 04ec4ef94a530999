"""Whether this machine gives the sandbox its kernel layers, checked before a run starts.

The sandbox always applies its in-process layers (audit hook, resource limits, scrubbed
environment, private job directory), but those can be undone by a program that corrupts the
interpreter (see the package docstring). What cannot be undone from inside is the kernel's:
no network (a network namespace or the seccomp filter) and no file change outside the job
directory (Landlock). A machine that gives neither is told so before any model is asked, as a
missing system dependency (`vlmscope.dependencies`): a run stops with what to change, or, told
to go on, says in every summary that model-written code ran with the weaker isolation.
"""

from __future__ import annotations

from collections.abc import Callable

from vlmscope.dependencies import Dependency

from .jobs import Isolation
from .pool import SandboxUnavailable, default_pool

INSTALL = (
    "run on Linux >= 5.13 with Landlock enabled (boot with lsm=...,landlock) and allow user "
    "namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
    "kernel.apparmor_restrict_unprivileged_userns=0), or run the evaluation as root in a VM"
)
AFFECTS = (
    "program_judge would run model-written code confined only in-process (scores are the same; "
    "the protection of this machine is weaker)"
)


def _default_isolation() -> Isolation:
    return default_pool().isolation


def missing_kernel_layers(isolation: Isolation) -> list[str]:
    """The kernel layers `isolation` lacks, in words; empty when it has them all."""
    missing = []
    if not isolation.network_blocked_by_kernel:
        missing.append("network not blocked by the kernel (no network namespace, no seccomp)")
    if not isolation.writes_confined_by_kernel:
        missing.append("file writes not confined by the kernel (no Landlock)")
    return missing


def sandbox_dependency(isolation: Callable[[], Isolation] | None = None) -> Dependency:
    """The sandbox's kernel layers as a dependency (`isolation` defaults to the shared pool's).
    Starting one worker is the only way to know what the kernel grants; the pool keeps it for
    the scoring that follows."""
    try:
        missing = missing_kernel_layers((isolation or _default_isolation)())
    except SandboxUnavailable as error:
        missing = [f"no sandbox worker could start ({error})"]
    return Dependency(
        name="sandbox kernel isolation",
        missing="; ".join(missing) or None,
        install=INSTALL,
        affects=AFFECTS,
    )
