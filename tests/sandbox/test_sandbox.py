"""The sandbox runs ordinary programs faithfully and contains hostile ones.

Every hostile snippet must (a) not do its damage, as checked from outside the sandbox, (b) end
with a result rather than an exception or a hang, and (c) score 0 under `judge_program`.
"""

from __future__ import annotations

import os
import select
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from vlmscope.sandbox import (
    ProgramJob,
    SandboxPool,
    judge_program,
    judge_programs,
    run_program,
    run_programs,
)

FAST_TIMEOUT_S = 1.0


# ---------------------------------------------------------------- ordinary programs


def test_reads_stdin_and_prints(pool: SandboxPool) -> None:
    code = "n = int(input())\nnumbers = list(map(int, input().split()))\nprint(sum(numbers[:n]))"
    result = pool.run(ProgramJob(code, "3\n1 2 3 4\n"))
    assert (result.stdout, result.stderr, result.returncode, result.error) == ("6\n", "", 0, None)
    assert result.ok and not result.timed_out


def test_sys_stdin_unicode_and_stderr(pool: SandboxPool) -> None:
    code = "import sys\ndata = sys.stdin.read()\nprint(data.upper(), end='')\nprint('note', file=sys.stderr)"
    result = pool.run(ProgramJob(code, "héllo wörld ✓\nline two\n"))
    assert result.stdout == "HÉLLO WÖRLD ✓\nLINE TWO\n"
    assert result.stderr == "note\n"


def test_large_stdin_and_stdout_do_not_deadlock(pool: SandboxPool) -> None:
    text = "abcdefghij" * 100_000 + "\n"  # 1 MB each way, far beyond a pipe buffer
    result = pool.run(ProgramJob("import sys\nsys.stdout.write(sys.stdin.read())", text))
    assert result.ok and result.stdout == text


def test_exit_status_and_traceback(pool: SandboxPool) -> None:
    exited = pool.run(ProgramJob("import sys\nprint('partial')\nsys.exit(3)"))
    assert (exited.stdout, exited.returncode, exited.error) == ("partial\n", 3, None)
    raised = pool.run(ProgramJob("def f():\n    return 1 / 0\nf()"))
    assert raised.returncode == 1 and raised.error is None
    assert raised.stderr.startswith("Traceback (most recent call last):")
    assert raised.stderr.rstrip().endswith("ZeroDivisionError: division by zero")
    assert 'File "<program>", line 2, in f' in raised.stderr
    assert "_inside" not in raised.stderr  # the sandbox's own frames are not shown


def test_runs_as_main_with_fresh_state(pool: SandboxPool) -> None:
    code = "import builtins\nprint(__name__, hasattr(builtins, 'leak'))\nbuiltins.leak = 1"
    first, second = pool.map([ProgramJob(code), ProgramJob(code)], concurrency=1)
    assert first.stdout == second.stdout == "__main__ False\n"


def test_threads_are_allowed(pool: SandboxPool) -> None:
    code = (
        "import threading\nout = []\n"
        "workers = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]\n"
        "[w.start() for w in workers]\n[w.join() for w in workers]\nprint(sorted(out))"
    )
    assert pool.run(ProgramJob(code)).stdout == "[0, 1, 2, 3]\n"


def test_asyncio_works(pool: SandboxPool) -> None:
    code = "import asyncio\nasync def main():\n    return 6 * 7\nprint(asyncio.run(main()))"
    assert pool.run(ProgramJob(code)).stdout == "42\n"


def test_job_directory_is_private_writable_and_deleted(pool: SandboxPool) -> None:
    code = (
        "import os\nopen('notes.txt', 'w').write('kept')\nos.mkdir('sub')\n"
        "print(os.getcwd())\nprint(open('notes.txt').read(), sorted(os.listdir('.')))"
    )
    result = pool.run(ProgramJob(code))
    job_dir, listing = result.stdout.splitlines()
    assert listing == "kept ['notes.txt', 'sub']"
    assert not os.path.exists(job_dir)


def test_batch_keeps_order(pool: SandboxPool) -> None:
    jobs = [ProgramJob("print(int(input()) ** 2)", f"{i}\n") for i in range(24)]
    results = run_programs(jobs, pool=pool, workers=4)
    assert [r.stdout for r in results] == [f"{i * i}\n" for i in range(24)]


def test_module_level_run_program() -> None:
    result = run_program("print(input()[::-1])", "olleh\n", timeout_s=5.0, memory_mb=256)
    assert result.stdout == "hello\n"


def test_rejects_nonsense_limits() -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        ProgramJob("pass", timeout_s=0)
    with pytest.raises(ValueError, match="memory_mb"):
        ProgramJob("pass", memory_mb=-1)


# ---------------------------------------------------------------- hostile programs


def test_infinite_loop_is_killed_on_time(pool: SandboxPool) -> None:
    result = pool.run(ProgramJob("while True:\n    pass", timeout_s=FAST_TIMEOUT_S))
    assert result.timed_out and result.returncode is None
    assert result.error is not None and "timed out" in result.error


def test_sleeper_ignoring_sigterm_is_killed(pool: SandboxPool) -> None:
    code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)"
    result = pool.run(ProgramJob(code, timeout_s=FAST_TIMEOUT_S))
    assert result.timed_out and result.returncode is None


def test_fork_bomb_is_refused(pool: SandboxPool) -> None:
    result = pool.run(ProgramJob("import os\nwhile True:\n    os.fork()", timeout_s=5.0))
    assert result.returncode == 1 and "PermissionError" in result.stderr


def test_persistent_fork_bomb_only_burns_its_own_time(pool: SandboxPool) -> None:
    code = (
        "import os\nwhile True:\n    for attempt in (os.fork, lambda: os.system('x'),"
        " lambda: __import__('subprocess').Popen(['sh'])):\n        try:\n            attempt()\n"
        "        except BaseException:\n            pass"
    )
    result = pool.run(ProgramJob(code, timeout_s=FAST_TIMEOUT_S))
    assert result.timed_out
    assert pool.run(ProgramJob("print('alive')")).stdout == "alive\n"  # the worker survived


@pytest.mark.parametrize(
    "code",
    [
        "blob = bytearray(8 * 1024 ** 3)",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 ** 2))",
    ],
    ids=["one-huge-allocation", "growing-list"],
)
def test_memory_bomb_hits_the_limit(pool: SandboxPool, code: str) -> None:
    result = pool.run(ProgramJob(code, timeout_s=10.0, memory_mb=128))
    assert not result.timed_out
    assert result.returncode == 1 and "MemoryError" in result.stderr


def test_file_size_limit(pool: SandboxPool) -> None:
    code = "with open('big.bin', 'wb') as f:\n    f.write(bytes(64 * 1024 * 1024))"
    result = pool.run(ProgramJob(code))
    assert result.returncode != 0
    assert result.error == "file size limit exceeded" or "File too large" in result.stderr


def test_output_flood_is_cut(pool: SandboxPool) -> None:
    result = pool.run(ProgramJob("while True:\n    print('x' * 10000)", max_output_bytes=1 << 20))
    assert result.returncode is None and result.error is not None and "output" in result.error
    assert not result.timed_out


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def _connection_arrived(server: socket.socket) -> bool:
    readable, _, _ = select.select([server], [], [], 0.2)
    return bool(readable)


def test_socket_connect_reaches_nothing(
    pool_each_isolation: SandboxPool, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    attempts = [
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'hi')",
        f"import _socket\ns = _socket.socket()\ns.connect(('127.0.0.1', {port}))",
        f"import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{port}/', timeout=1)",
    ]
    results = pool_each_isolation.map([ProgramJob(code, timeout_s=5.0) for code in attempts])
    for result in results:
        assert result.returncode == 1 and not result.timed_out, result
    assert not _connection_arrived(listener)


def test_writes_outside_job_dir_do_not_happen(
    pool_each_isolation: SandboxPool, tmp_path: Path
) -> None:
    targets = {name: tmp_path / name for name in ("open", "os_open", "pathlib", "rename", "link")}
    attempts = [
        f"open({str(targets['open'])!r}, 'w').write('x')",
        f"import os\nos.open({str(targets['os_open'])!r}, os.O_WRONLY | os.O_CREAT)",
        f"import pathlib\npathlib.Path({str(targets['pathlib'])!r}).write_text('x')",
        f"import os\nopen('mine', 'w').close()\nos.rename('mine', {str(targets['rename'])!r})",
        f"import os\nos.symlink({str(tmp_path)!r}, 'door')\nopen('door/link', 'w').write('x')",
        f"import os\nos.chdir({str(tmp_path)!r})\nopen('chdir', 'w').write('x')",
        f"import os\nos.chmod({str(tmp_path)!r}, 0o777)",
    ]
    mode_before = tmp_path.stat().st_mode
    results = pool_each_isolation.map([ProgramJob(code) for code in attempts])
    for result in results:
        assert result.returncode == 1 and "PermissionError" in result.stderr, result
    assert sorted(os.listdir(tmp_path)) == []
    assert tmp_path.stat().st_mode == mode_before


def test_parent_environment_is_invisible(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-not-a-real-key-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code = (
        "import os\nprint(sorted(os.environ))\nprint(os.environ.get('OPENAI_API_KEY'))\n"
        "for path in ('/proc/self/environ', '/proc/1/environ', f'/proc/{os.getppid()}/environ'):\n"
        "    try:\n        print(open(path, 'rb').read())\n    except OSError as error:\n"
        "        print(type(error).__name__)"
    )
    leak = "import os\nprint('ok' if os.environ.get('OPENAI_API_KEY') else 'no')"
    with SandboxPool(max_workers=1) as fresh:  # its worker starts with the key in our environment
        result = fresh.run(ProgramJob(code))
        leak_score = judge_program(leak, {"input": [], "expected": "ok"}, pool=fresh)
    assert result.ok, result
    assert leak_score == 0.0
    names, value, *proc_reads = result.stdout.splitlines()
    assert "OPENAI_API_KEY" not in names and value == "None"
    assert proc_reads == ["PermissionError"] * 3
    assert secret not in result.stdout + result.stderr


def test_ctypes_and_subprocess_are_unavailable(pool: SandboxPool) -> None:
    results = pool.map(
        [
            ProgramJob("import ctypes"),
            ProgramJob("import subprocess\nsubprocess.run(['true'])"),
            ProgramJob("import os\nos.system('true')"),
            ProgramJob("import os\nos.kill(1, 9)"),
        ]
    )
    for result in results:
        assert result.returncode == 1 and "sandbox:" in result.stderr, result


def test_hostile_programs_score_zero(pool: SandboxPool, tmp_path: Path) -> None:
    """Each would print the expected answer if its attack were allowed to go through."""
    victim = tmp_path / "victim.txt"
    expected = {"input": ["1"], "expected": "ok"}
    hostile = [
        "while True:\n    pass",
        "import os\nwhile True:\n    os.fork()\nprint('ok')",
        "blob = bytearray(16 * 1024 ** 3)\nprint('ok')",
        "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\nprint('ok')",
        f"open({str(victim)!r}, 'w').write('x')\nprint('ok')",
        "import subprocess\nprint(subprocess.check_output(['echo', 'ok']).decode().strip())",
    ]
    scores = judge_programs(
        [(code, expected) for code in hostile], timeout_s=FAST_TIMEOUT_S, memory_mb=256, pool=pool
    )
    assert scores == [0.0] * len(hostile)
    assert not victim.exists()
    assert judge_programs([("print('ok')", expected)], pool=pool) == [1.0]  # the judge still works
