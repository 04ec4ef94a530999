"""MEGA-Bench `program_judge`: score a program by running it on test cases, official semantics.

Score = passed / total over `test_cases` (one dict or a list of dicts with "input": list of lines
and "expected": str); 0.0 when there are no test cases. A test passes when the official harness
(recreated in `_inside.judge_driver`, whose docstring lists the quirks) reports an output equal
to `expected.rstrip()`. Each test case runs in its own sandboxed child, as upstream forks one
process per test; the 2 s default is upstream's per-test wall-clock limit. Upstream never sees a
non-string response as code: `None` crashes its harness before it reports, so every test fails.

Differences from upstream, all from the sandbox: a program cannot use the network, start
processes, read or write files outside its job directory (reading the Python installation is
fine) or import libraries that need ctypes at import time (sympy, scipy; numpy is fine), and its
memory is capped (`memory_mb`; upstream has no cap). The method locals `self`/`output_queue`
upstream leaves visible to the program are None here. Scores of programs whose top-level
comprehensions use top-level names depend on the Python version, upstream as here (3.12 inlined
comprehensions).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._inside.judge_driver import VERDICT_MARKER
from .jobs import DEFAULT_MEMORY_MB, ProgramJob, SandboxResult
from .pool import SandboxPool, default_pool

OFFICIAL_TEST_TIMEOUT_S = 2.0
JUDGE_PROGRAM = "from _inside.judge_driver import main\nmain()\n"
# What upstream records as the output of a test whose harness did not report.
TIME_LIMIT_MESSAGE = "ERROR: Code execution exceeded the time limit."
NO_OUTPUT_MESSAGE = "ERROR: No output was produced before timeout."

TestCase = Mapping[str, Any]


@dataclass(frozen=True)
class CaseOutcome:
    """One test case: what the program produced (or upstream's error text) and the verdict."""

    input_lines: tuple[str, ...]
    expected: str
    observed: str
    passed: bool
    run: SandboxResult | None  # None when the program was not run (non-string response)


def normalise_test_cases(test_cases: TestCase | Sequence[TestCase]) -> list[TestCase]:
    """Upstream accepts a single test-case dict as well as a list of them."""
    return [test_cases] if isinstance(test_cases, Mapping) else list(test_cases)


def input_lines_of(test_case: TestCase) -> list[str]:
    """The lines `input()` returns: upstream joins the inputs with newlines and splits again
    with `splitlines`, so an empty input list still yields one empty line."""
    return ("\n".join(test_case["input"]) + "\n").splitlines()


def judge_job(code: str, test_case: TestCase, timeout_s: float, memory_mb: int) -> ProgramJob:
    request = {"code": code, "input_lines": input_lines_of(test_case)}
    return ProgramJob(
        code=JUDGE_PROGRAM, stdin=json.dumps(request), timeout_s=timeout_s, memory_mb=memory_mb
    )


def observed_output(run: SandboxResult) -> str:
    """The harness's reported output, or upstream's text for a run that did not report."""
    if run.timed_out:
        return TIME_LIMIT_MESSAGE
    _, marker, verdict_text = run.stdout.rpartition(VERDICT_MARKER)
    if not marker:
        return NO_OUTPUT_MESSAGE
    try:
        return str(json.loads(verdict_text)["output"])
    except (ValueError, KeyError, TypeError):
        return NO_OUTPUT_MESSAGE


def _outcome(test_case: TestCase, run: SandboxResult | None) -> CaseOutcome:
    expected = str(test_case["expected"])
    observed = NO_OUTPUT_MESSAGE if run is None else observed_output(run)
    return CaseOutcome(
        input_lines=tuple(input_lines_of(test_case)),
        expected=expected,
        observed=observed,
        passed=observed == expected.rstrip(),
        run=run,
    )


def judge_programs_detailed(
    submissions: Sequence[tuple[object, TestCase | Sequence[TestCase]]],
    *,
    timeout_s: float = OFFICIAL_TEST_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
    pool: SandboxPool | None = None,
    workers: int | None = None,
) -> list[list[CaseOutcome]]:
    """Per submission (code, test cases), the outcome of every test; all runs go out at once."""
    cases_per_submission = [normalise_test_cases(cases) for _, cases in submissions]
    jobs: list[ProgramJob] = []
    for (code, _), cases in zip(submissions, cases_per_submission, strict=True):
        if isinstance(code, str):
            jobs.extend(judge_job(code, case, timeout_s, memory_mb) for case in cases)
    runs = iter((pool or default_pool()).map(jobs, concurrency=workers))
    return [
        [_outcome(case, next(runs) if isinstance(code, str) else None) for case in cases]
        for (code, _), cases in zip(submissions, cases_per_submission, strict=True)
    ]


def score_of(outcomes: Sequence[CaseOutcome]) -> float:
    return sum(o.passed for o in outcomes) / len(outcomes) if outcomes else 0.0


def judge_programs(
    submissions: Sequence[tuple[object, TestCase | Sequence[TestCase]]],
    *,
    timeout_s: float = OFFICIAL_TEST_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
    pool: SandboxPool | None = None,
    workers: int | None = None,
) -> list[float]:
    """`judge_program` for many (code, test cases) pairs, run concurrently."""
    detailed = judge_programs_detailed(
        submissions, timeout_s=timeout_s, memory_mb=memory_mb, pool=pool, workers=workers
    )
    return [score_of(outcomes) for outcomes in detailed]


def judge_program(
    code: object,
    test_cases: TestCase | Sequence[TestCase],
    *,
    timeout_s: float = OFFICIAL_TEST_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
    pool: SandboxPool | None = None,
) -> float:
    """Share of `test_cases` the program `code` passes under the official harness semantics."""
    return judge_programs(
        [(code, test_cases)], timeout_s=timeout_s, memory_mb=memory_mb, pool=pool
    )[0]
