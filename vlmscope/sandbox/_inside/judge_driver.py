"""MEGA-Bench `program_judge` test harness, recreated to run inside the sandbox.

The official harness (TIGER-AI-Lab/MEGA-Bench megabench/metrics/scoring/program_judge.py, class
CodeTester) runs each test case in a forked process that:
- replaces `builtins.input` with a mock whose side effect is the test's input lines (the prompt
  argument is ignored and never printed; one call too many raises StopIteration);
- replaces `sys.stdout` with a StringIO; reading `sys.stdin` gets nothing (multiprocessing puts
  /dev/null there);
- if the code contains the exact text `if __name__ == "__main__":` runs
  `exec(code, {"__name__": "__main__"})`, otherwise `exec(code)` inside a method, i.e. with the
  metric module's globals and a *separate* locals dict. QUIRK: top-level names (imports,
  functions, variables) then land in the locals dict, which functions, lambdas and (before
  Python 3.12) comprehensions cannot see, so such a program fails with NameError as soon as a
  function uses a top-level name; `__name__` is the module's name, so a single-quoted guard
  never runs and prints nothing;
- reports `captured.rstrip()` on success and `"ERROR during execution: {exception}"` when an
  `Exception` escapes; a BaseException such as `SystemExit` (also `exit()` after correct output)
  kills the harness before it reports, which fails the test.

Request (JSON on stdin): {"code": str, "input_lines": [str, ...]}. The verdict is printed last on
the real stdout after VERDICT_MARKER as JSON: {"output": str, "raised": bool}; no verdict means the
run ended without reporting.
"""

import builtins
import io
import json
import os
import pathlib
import sys

VERDICT_MARKER = "\x00vlmscope-program-judge-verdict\x00"
MAIN_GUARD = 'if __name__ == "__main__":'
OFFICIAL_MODULE_NAME = "metrics.scoring.program_judge"


def _official_module_globals() -> dict[str, object]:
    """Names the official metric module defines that a program could use without importing."""
    return {
        "__name__": OFFICIAL_MODULE_NAME,
        "__builtins__": builtins,
        "io": io,
        "json": json,
        "pathlib": pathlib,
    }


def judge(code: str, input_lines: list[str]) -> dict[str, object]:
    """Run `code` once as the official harness does; the verdict dict described above."""
    remaining_lines = iter(input_lines)

    def patched_input(*args: object, **kwargs: object) -> str:
        return next(remaining_lines)

    captured = io.StringIO()
    saved_input, saved_stdout = builtins.input, sys.stdout
    builtins.input = patched_input
    sys.stdout = captured
    try:
        compiled = compile(code, "<string>", "exec", dont_inherit=True)
        if MAIN_GUARD in code:
            exec(compiled, {"__name__": "__main__"})
        else:
            # The locals of CodeTester.target at the time of its exec() call.
            method_locals = {
                "self": None,
                "output_queue": None,
                "input_str": "\n".join(input_lines) + "\n",
                "contains_main_block": False,
                "stdout": captured,
            }
            exec(compiled, _official_module_globals(), method_locals)
    except Exception as error:
        return {"output": f"ERROR during execution: {error}", "raised": True}
    else:
        return {"output": captured.getvalue().rstrip(), "raised": False}
    finally:
        builtins.input = saved_input
        sys.stdout = saved_stdout


def main() -> None:
    request = json.loads(sys.stdin.read())
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    verdict = judge(request["code"], request["input_lines"])
    sys.stdout.write("\n" + VERDICT_MARKER + json.dumps(verdict) + "\n")
    sys.stdout.flush()
