"""Run the program text as the `__main__` module and turn its ending into an exit status.

This mirrors what `python program.py` does (a fresh `__main__` module, uncaught exceptions
printed as a traceback with exit status 1, `SystemExit` honoured, atexit handlers and non-daemon
threads finished, streams flushed) without starting a new interpreter, which is what makes a
sandboxed run cost a fork instead of an interpreter start-up.
"""

import atexit
import builtins
import contextlib
import os
import sys
import traceback
import types

PROGRAM_FILENAME = "<program>"
_SANDBOX_CODE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def exit_status(code: object) -> int:
    """The process exit status `sys.exit(code)` produces."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def _without_sandbox_frames(report: traceback.TracebackException) -> None:
    """Drop the sandbox's own frames (harness, audit hook) from a traceback and its chain."""
    pending, seen = [report], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.stack = traceback.StackSummary.from_list(
            [frame for frame in current.stack if not frame.filename.startswith(_SANDBOX_CODE_DIR)]
        )
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]


def _print_uncaught(error: BaseException) -> None:
    """Print the traceback the way the interpreter would, without the sandbox's frames."""
    try:
        report = traceback.TracebackException.from_exception(error)
        _without_sandbox_frames(report)
        sys.stderr.write("".join(report.format()))
    except Exception:
        pass


def _finish_interpreter_duties() -> None:
    """What the interpreter does at a normal exit: join threads, run atexit, flush."""
    threading = sys.modules.get("threading")
    if threading is not None:
        with contextlib.suppress(Exception):
            threading._shutdown()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()


def run_main(code: str) -> int:
    """Execute `code` as a script; returns the exit status the process should end with."""
    module = types.ModuleType("__main__")
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.argv = [PROGRAM_FILENAME]
    status = 0
    try:
        # dont_inherit: this module's own compiler flags must not leak into the program.
        compiled = compile(code, PROGRAM_FILENAME, "exec", dont_inherit=True)
        exec(compiled, module.__dict__)
    except SystemExit as exit_request:
        status = exit_status(exit_request.code)
    except BaseException as error:
        _print_uncaught(error)
        status = 1
    _finish_interpreter_duties()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            status = status or 120  # what CPython returns when flushing stdout fails at exit
    return status
