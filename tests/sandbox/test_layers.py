"""Each confinement layer on its own: audit hook decisions, the seccomp filter, the wire format
and the isolation a worker reports."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vlmscope.sandbox import SandboxPool
from vlmscope.sandbox._inside import landlock, seccomp
from vlmscope.sandbox._inside.audit import make_hook
from vlmscope.sandbox._inside.wire import encode_frame, read_frame, write_frame
from vlmscope.sandbox.launcher import SANDBOX_DIR

WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
JOB = "/jobs/job-1"
PYTHON_ROOT = "/opt/python"


Hook = Callable[[str, tuple[Any, ...]], None]


@pytest.fixture
def hook() -> Hook:
    return make_hook(JOB, (PYTHON_ROOT,))


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("open", (f"{JOB}/out.txt", "w", WRITE)),
        ("open", (f"{JOB}/sub/../out.txt", "a", WRITE)),
        ("open", (f"{JOB}/out.bin".encode(), "wb", WRITE)),
        ("open", (7, "w", WRITE)),
        ("open", ("/dev/null", "w", WRITE)),
        ("open", (f"{PYTHON_ROOT}/lib/os.py", "r", os.O_RDONLY)),
        ("open", ("/usr/share/zoneinfo/UTC", "rb", os.O_RDONLY)),
        ("os.remove", (f"{JOB}/old", -1)),
        ("os.mkdir", (f"{JOB}/new", 0o777, -1)),
        ("os.rename", (f"{JOB}/a", f"{JOB}/b", -1, -1)),
        ("os.listdir", (f"{PYTHON_ROOT}/lib",)),
        ("os.listdir", (None,)),
        ("import", ("json", None, [], [], [])),
        ("compile", (b"", "<string>")),
    ],
)
def test_hook_allows(hook: Hook, event: str, args: tuple[Any, ...]) -> None:
    hook(event, args)


@pytest.mark.parametrize(
    ("event", "args", "error"),
    [
        ("open", ("/tmp/out.txt", "w", WRITE), PermissionError),
        ("open", (f"{JOB}/../job-2/out.txt", "w", WRITE), PermissionError),
        ("open", (f"{JOB}0/out.txt", "w", WRITE), PermissionError),
        ("open", (f"{PYTHON_ROOT}/lib/os.py", "r+", os.O_RDWR), PermissionError),
        ("open", ("/etc/passwd", "r", os.O_RDONLY), PermissionError),
        ("open", ("/proc/1/environ", "rb", os.O_RDONLY), PermissionError),
        ("open", (Path(f"{JOB}/out.txt"), "w", WRITE), PermissionError),
        ("open", ("relative.txt", None, os.O_RDONLY), PermissionError),
        ("os.remove", ("/etc/hosts", -1), PermissionError),
        ("os.remove", ("old", 5), PermissionError),
        ("os.rename", (f"{JOB}/a", "/tmp/b", -1, -1), PermissionError),
        ("os.chmod", ("/tmp", 0o700, -1), PermissionError),
        ("os.symlink", ("/", f"{JOB}/root", -1), PermissionError),
        ("os.link", ("/etc/passwd", f"{JOB}/p", -1, -1, True), PermissionError),
        ("os.listdir", ("/root",), PermissionError),
        ("sqlite3.connect", ("/tmp/db.sqlite",), PermissionError),
        ("socket.__new__", (None, 2, 1, 0), PermissionError),
        ("socket.getaddrinfo", ("example.com", 80, 0, 0, 0), PermissionError),
        ("os.fork", (), PermissionError),
        ("os.system", (b"true",), PermissionError),
        ("subprocess.Popen", ("sh", ["sh"], None, None), PermissionError),
        ("os.kill", (1, 9), PermissionError),
        ("sys.settrace", (None,), PermissionError),
        ("gc.get_referrers", ((),), PermissionError),
        ("ctypes.dlopen", ("libc.so.6",), PermissionError),
        ("import", ("ctypes", None, [], [], []), ImportError),
        ("import", ("_posixsubprocess", None, [], [], []), ImportError),
    ],
)
def test_hook_refuses(
    hook: Hook, event: str, args: tuple[Any, ...], error: type[Exception]
) -> None:
    with pytest.raises(error, match="sandbox"):
        hook(event, args)


def test_hook_resolves_relative_paths_against_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = tmp_path / "job"
    job.mkdir()
    monkeypatch.chdir(job)
    hook = make_hook(str(job), ())
    hook("open", ("notes.txt", "w", WRITE))
    with pytest.raises(PermissionError):
        hook("open", ("../escape.txt", "w", WRITE))
    monkeypatch.chdir(tmp_path)  # a program that chdir-ed out of its job directory
    with pytest.raises(PermissionError):
        hook("open", ("notes.txt", "w", WRITE))


def test_hook_keeps_working_when_builtins_are_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program can rebind builtins and os functions; the hook captured its own at creation."""
    import builtins

    hook = make_hook(JOB, ())
    monkeypatch.setattr(os, "getcwd", lambda: JOB)
    outcomes = []
    real_type = builtins.type
    setattr(builtins, "type", lambda obj: str)  # noqa: B010 - mypy refuses the plain assignment
    try:
        for path in ("/tmp/x", "x"):  # the real cwd is not the job directory
            try:
                hook("open", (path, "w", WRITE))
                outcomes.append("allowed")
            except PermissionError:
                outcomes.append("refused")
    finally:
        setattr(builtins, "type", real_type)  # noqa: B010
    assert outcomes == ["refused", "refused"]


def test_seccomp_template_matches_direct_build() -> None:
    if not seccomp.available():
        pytest.skip("seccomp filter only built for x86-64 Linux")
    for pid in (1, 2, 4242, 65535, 4194304):
        assert seccomp.filter_for(pid) == seccomp.build_filter(pid)


PROBE_PRELUDE = textwrap.dedent(
    """
    import os, socket, sys, threading
    sys.path.insert(0, sys.argv[1])
    def outcome(action):
        try:
            action()
            return "allowed"
        except OSError as error:
            return type(error).__name__
    """
)


def _run_probe(body: str, *arguments: str) -> str:
    """Run prelude + body in a fresh interpreter (the layers cannot be undone); its stdout."""
    completed = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE_PRELUDE + textwrap.dedent(body), str(SANDBOX_DIR)]
        + list(arguments),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


SECCOMP_PROBE = """
    from _inside import seccomp
    assert seccomp.available()
    seccomp.install(os.getpid())
    results = {
        "fork": outcome(os.fork),
        "socket": outcome(socket.socket),
        "exec": outcome(lambda: os.execv("/bin/true", ["true"])),
        "kill_other": outcome(lambda: os.kill(1, 0)),
        "kill_self": outcome(lambda: os.kill(os.getpid(), 0)),
        "socketpair": outcome(lambda: [s.close() for s in socket.socketpair()]),
        "chmod": outcome(lambda: os.chmod(sys.argv[1], os.stat(sys.argv[1]).st_mode)),
    }
    box = []
    worker = threading.Thread(target=box.append, args=("thread ran",))
    worker.start()
    worker.join()
    results["thread"] = box[0] if box else "no"
    print(results)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.machine() != "x86_64",
    reason="seccomp filter only built for x86-64 Linux",
)
def test_seccomp_refuses_processes_sockets_exec_and_signals_but_not_threads() -> None:
    assert _run_probe(SECCOMP_PROBE) == str(
        {
            "fork": "PermissionError",
            "socket": "PermissionError",
            "exec": "PermissionError",
            "kill_other": "PermissionError",
            "kill_self": "allowed",
            "socketpair": "allowed",
            "chmod": "PermissionError",
            "thread": "thread ran",
        }
    )


LANDLOCK_PROBE = """
    from _inside import landlock
    allowed, elsewhere = sys.argv[2], sys.argv[3]
    ruleset = landlock.prepare(allowed)
    if ruleset is None:
        print("unavailable")
        raise SystemExit(0)
    landlock.enforce(ruleset)
    def write(path):
        with open(path, "w") as handle:
            handle.write("x")
    print({
        "write_inside": outcome(lambda: write(os.path.join(allowed, "a.txt"))),
        "rename_inside": outcome(lambda: os.rename(os.path.join(allowed, "a.txt"),
                                                   os.path.join(allowed, "b.txt"))),
        "write_outside": outcome(lambda: write(os.path.join(elsewhere, "c.txt"))),
        "mkdir_outside": outcome(lambda: os.mkdir(os.path.join(elsewhere, "d"))),
        "dev_null": outcome(lambda: write(os.devnull)),
        "read_outside": outcome(lambda: open(sys.executable, "rb").close()),
    })
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux-only")
def test_landlock_confines_changes_to_one_directory(tmp_path: Path) -> None:
    allowed, elsewhere = tmp_path / "allowed", tmp_path / "elsewhere"
    allowed.mkdir()
    elsewhere.mkdir()
    report = _run_probe(LANDLOCK_PROBE, str(allowed), str(elsewhere))
    if report == "unavailable":
        pytest.skip("this kernel has no Landlock")
    assert report == str(
        {
            "write_inside": "allowed",
            "rename_inside": "allowed",
            "write_outside": "PermissionError",
            "mkdir_outside": "PermissionError",
            "dev_null": "allowed",
            "read_outside": "allowed",
        }
    )
    assert sorted(os.listdir(elsewhere)) == [] and sorted(os.listdir(allowed)) == ["b.txt"]


def test_wire_round_trip_and_end_of_stream() -> None:
    message = {"code": "print('é\\n')", "stdin": "x" * 300_000, "timeout_s": 1.5}
    read_fd, write_fd = os.pipe()

    def send() -> None:  # a frame larger than the pipe buffer needs a concurrent reader
        write_frame(write_fd, message)
        os.close(write_fd)

    sender = threading.Thread(target=send)
    sender.start()
    try:
        assert read_frame(read_fd) == message
        assert read_frame(read_fd) is None
    finally:
        sender.join()
        os.close(read_fd)
    assert encode_frame({})[:4] == b"\x00\x00\x00\x02"


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--net", "true"], check=False)
    root_probe = os.geteuid() == 0 and subprocess.run(["unshare", "--net", "true"]).returncode == 0
    return probe.returncode == 0 or root_probe


def test_isolation_report(pool: SandboxPool) -> None:
    isolation = pool.isolation
    if _unshare_works():
        assert {"net", "pid"} <= set(isolation.namespaces)
        assert isolation.pid_namespace_init and isolation.network_blocked_by_kernel
    if sys.platform.startswith("linux") and platform.machine() == "x86_64":
        assert isolation.seccomp
        assert isolation.landlock == (landlock.abi_version() > 0)


def test_process_isolation_uses_no_namespaces() -> None:
    with SandboxPool(max_workers=1, isolation="process") as pool:
        assert pool.isolation.namespaces == ()
        assert not pool.isolation.pid_namespace_init
