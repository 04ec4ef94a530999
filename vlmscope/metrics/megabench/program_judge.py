"""`program_judge`: run the answer as a Python program against the task's test cases.

A thin adapter over `vlmscope.sandbox.judge_program`, which runs every test case in a fresh
sandboxed child (the same pool `vlmscope.sandbox.run_program` uses) under a recreation of the
official harness; its docstring lists the quirks that change scores (patched `input()` that ignores
its prompt, empty `sys.stdin`, separate globals/locals unless the code contains the exact text
`if __name__ == "__main__":`, `SystemExit` failing the test, the official 2 s limit per test).
Keeping one copy of that harness, next to the sandbox, is why this module holds none.

Score = passed tests / all tests (0 with no tests); a non-string answer fails every test.
"""

from __future__ import annotations

from typing import Any


def program_judge(response: Any, eval_context: Any, *, pool: Any = None) -> float:
    """Share of the test cases in `eval_context["test_case"]` (one dict or a list) that the
    program passes; `pool` is an optional `vlmscope.sandbox.SandboxPool` (default: the shared one)."""
    from vlmscope.sandbox import judge_program

    return float(judge_program(response, eval_context["test_case"], pool=pool))
