"""How a sandbox worker process is started, and the settings it is sent.

The worker is `python -I -S -B` (isolated mode: no PYTHON* variables, no user site, no script
directory on sys.path; no `site` import, which is most of the start-up cost; no .pyc writes) with
an environment holding only PATH and LANG. Where `unshare` works it is wrapped in new network,
PID and mount namespaces (as root directly, otherwise through a mapped-root user namespace); the
candidates are tried in order and the first worker that reports ready wins.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import site
import stat
import sys
import sysconfig
from pathlib import Path
from typing import Any, Literal

IsolationMode = Literal["auto", "namespaces", "process"]

SANDBOX_DIR = Path(__file__).resolve().parent
BOOTSTRAP = "import sys; sys.path.insert(0, sys.argv[1]); from _inside.zygote import main; main()"
WORKER_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
NAMESPACE_KINDS = ("net", "pid", "mnt", "user", "ipc", "uts")
_NAMESPACE_FLAGS = ("--net", "--pid", "--fork", "--mount-proc", "--kill-child")
_UNPRIVILEGED_USER = "nobody"
_FALLBACK_UNPRIVILEGED_ID = 65534


def launch_prefixes(mode: IsolationMode) -> list[tuple[str, ...]]:
    """Command prefixes to try, strongest isolation first. () means no namespaces."""
    prefixes: list[tuple[str, ...]] = []
    unshare = shutil.which("unshare")
    if mode != "process" and unshare and sys.platform.startswith("linux"):
        if os.geteuid() == 0:
            prefixes.append((unshare, *_NAMESPACE_FLAGS))
        prefixes.append((unshare, "--user", "--map-root-user", *_NAMESPACE_FLAGS))
        prefixes.append((unshare, "--user", "--map-root-user", "--net"))
    if mode != "namespaces":
        prefixes.append(())
    return prefixes


def worker_command(prefix: tuple[str, ...]) -> list[str]:
    return [*prefix, sys.executable, "-I", "-S", "-B", "-c", BOOTSTRAP, str(SANDBOX_DIR)]


def parent_namespaces() -> dict[str, str]:
    """Namespace identities of this process, so a worker can tell which ones it left."""
    identities = {}
    for kind in NAMESPACE_KINDS:
        with contextlib.suppress(OSError):
            identities[kind] = os.readlink(f"/proc/self/ns/{kind}")
    return identities


def import_dirs() -> tuple[str, ...]:
    """Site-packages directories, added to the worker's sys.path without running `site`, so
    programs can import installed libraries (numpy, ...) as they could in the official harness."""
    return tuple(d for d in site.getsitepackages() if os.path.isdir(d))


def read_roots() -> tuple[str, ...]:
    """Directories a program may read: the Python installation and its libraries."""
    paths = sysconfig.get_paths()
    candidates = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        paths["stdlib"],
        paths["platstdlib"],
        *import_dirs(),
    }
    return tuple(sorted(os.path.realpath(p) for p in candidates if p and os.path.isdir(p)))


def _others_can_read(path: str) -> bool:
    """Whether a user with no relation to the owner can reach and list `path`."""
    resolved = Path(path).resolve()
    for ancestor in resolved.parents:
        if not os.stat(ancestor).st_mode & stat.S_IXOTH:
            return False
    mode = os.stat(resolved).st_mode
    return bool(mode & stat.S_IROTH and mode & stat.S_IXOTH)


def unprivileged_ids(prefix: tuple[str, ...]) -> tuple[int | None, int | None]:
    """The uid/gid programs should switch to, or (None, None) to keep the worker's.

    Only a real root worker can switch (a mapped-root user namespace maps just one uid), and it
    only does so when that user can still read the Python installation: otherwise every import
    the worker has not already done would fail.
    """
    if os.geteuid() != 0 or "--user" in prefix:
        return None, None
    try:
        if not all(_others_can_read(p) for p in read_roots()):
            return None, None
    except OSError:
        return None, None
    try:
        entry = pwd.getpwnam(_UNPRIVILEGED_USER)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return _FALLBACK_UNPRIVILEGED_ID, _FALLBACK_UNPRIVILEGED_ID


def worker_settings(base_dir: str, prefix: tuple[str, ...]) -> dict[str, Any]:
    uid, gid = unprivileged_ids(prefix)
    return {
        "base_dir": base_dir,
        "read_roots": list(read_roots()),
        "import_dirs": list(import_dirs()),
        "drop_to_uid": uid,
        "drop_to_gid": gid,
        "parent_namespaces": parent_namespaces(),
    }
