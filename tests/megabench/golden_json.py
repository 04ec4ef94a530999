"""Compare JSON documents the way the golden README asks: numbers within 1e-6, the rest exactly."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from vlmscope.tracks.megabench.aggregation import TaskResult

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
AGGREGATION = GOLDEN / "megabench_aggregation"
TASK_META = GOLDEN / "megabench_all_task_meta.json"
TOLERANCE = 1e-6


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_task_results(path: Path) -> list[TaskResult]:
    """An official `task_results.json` as typed results."""
    return [TaskResult.from_json(entry) for entry in load(path)]


def json_mismatches(actual: Any, expected: Any, where: str = "$") -> list[str]:
    """Every place where `actual` differs from `expected` (tuples compare as lists, as in JSON)."""
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return (
            []
            if actual == expected and type(actual) is type(expected)
            else [f"{where}: {actual!r} != {expected!r}"]
        )
    if isinstance(expected, (int, float)):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            return [f"{where}: {actual!r} is not a number ({expected!r})"]
        if math.isnan(expected):
            return [] if math.isnan(actual) else [f"{where}: {actual!r} != NaN"]
        return (
            [] if abs(actual - expected) <= TOLERANCE else [f"{where}: {actual!r} != {expected!r}"]
        )
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: {actual!r} is not an object"]
        problems = (
            [f"{where}: keys {sorted(actual)} != {sorted(expected)}"]
            if set(actual) != set(expected)
            else []
        )
        for key in expected.keys() & actual.keys():
            problems += json_mismatches(actual[key], expected[key], f"{where}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return [f"{where}: {actual!r} != {expected!r}"]
        problems = []
        for index, (mine, theirs) in enumerate(zip(actual, expected, strict=True)):
            problems += json_mismatches(mine, theirs, f"{where}[{index}]")
        return problems
    raise TypeError(f"unexpected JSON value at {where}: {expected!r}")


def assert_json_close(actual: Any, expected: Any) -> None:
    problems = json_mismatches(actual, expected)
    assert not problems, "\n".join(problems[:20])
