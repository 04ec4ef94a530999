"""A `task_results.json` (or `data_with_scores.json`) a user hands to `vlmscope megabench
summarize`, and an `all_query_responses.json` handed to `score`, checked row by row first.

The official tools index each row's keys directly, so a row without its `name` (or a scored
task without its `task_name`, `eval_type`, `query_response` or `example_info`) stops them with a
`KeyError`, and a document of the wrong shape with a `TypeError`. Here each becomes one error
naming the file, the row and the key, and what the row should hold. What the official code
reads with a default (a missing `score` or count is 0; a scored task without a
`mean_task_score` is left out) keeps that default.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vlmscope.tracks.megabench.aggregation import TaskResult
from vlmscope.tracks.megabench.official_files import read_json, task_results_from_scored

_RESULT_KEYS = ("name", "eval_type")
"""What each `task_results.json` row needs (the official reader indexes them)."""
_TASK_KEYS = ("task_name", "global_description", "example_info", "query_response")
"""What each task of an `all_query_responses.json` needs (the official evaluator indexes them)."""
_QUERY_KEYS = ("query_idx", "query_text", "correct_answer", "response")
"""What each of its `query_response` entries needs."""
_SCORED_KEYS = ("task_name", "eval_type", "query_response", "example_info")
"""What each scored task of a `data_with_scores.json` needs, when it has a `mean_task_score`."""
_EXAMPLE_KEYS = ("example_text", "image_paths")
"""What its `example_info` needs: the official count of demonstrations reads both."""


def read_task_results(path: str | Path) -> list[TaskResult]:
    """The task results in `path`, or a `ValueError` naming the file, row and key at fault."""
    document = read_json(path)
    check_task_results(document, str(path))
    try:
        return task_results_from_scored(document)
    except ValueError as err:  # a count that is not a number names its task already
        raise ValueError(f"{path}: {err}") from None


def check_task_results(document: Any, source: str) -> None:
    """Refuse a document whose rows the official readers would fail on, naming the first."""
    if isinstance(document, Mapping) and "data" in document:
        rows = document["data"]
        if not isinstance(rows, list):
            raise ValueError(f"{source}: field 'data': expected a list of scored tasks")
        for index, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise ValueError(f"{source} data[{index}]: expected an object, got {row!r:.60}")
            if _scored(row):
                place = f"{source} data[{index}]"
                _need(row, _SCORED_KEYS, place, "each data_with_scores.json row")
                example = row["example_info"]
                if not isinstance(example, Mapping):
                    raise ValueError(f"{place}: field 'example_info': expected an object")
                _need(example, _EXAMPLE_KEYS, f"{place}.example_info", "the demonstration count")
    elif isinstance(document, list):
        for index, row in enumerate(document):
            place, keys = f"{source} row {index}", ", ".join(_RESULT_KEYS)
            if not isinstance(row, Mapping):
                raise ValueError(f"{place}: expected an object with {keys}, got {row!r:.60}")
            _need(row, _RESULT_KEYS, place, "each task_results.json row")
    else:
        raise ValueError(
            f"{source}: expected a task_results.json list of task results, or a "
            'data_with_scores.json {"data": [...]} document'
        )


def _scored(row: Mapping[str, Any]) -> bool:
    """Whether the official refinement keeps this task (it has a score other than -1)."""
    return "mean_task_score" in row and row["mean_task_score"] != -1


def check_response_rows(document: Any, source: str) -> None:
    """Refuse an `all_query_responses.json` whose tasks or queries lack what the official
    evaluator reads, naming the file, the task's index and name, the query and the key."""
    if not isinstance(document, list):
        raise ValueError(f"{source}: expected a list of tasks (all_query_responses.json)")
    for index, task in enumerate(document):
        place = f"{source} row {index}"
        if not isinstance(task, Mapping):
            raise ValueError(f"{place}: expected a task object, got {task!r:.60}")
        place += f" (task {task.get('task_name')!r})" if "task_name" in task else ""
        _need(task, _TASK_KEYS, place, "each task")
        queries = task["query_response"]
        if not isinstance(queries, list):
            raise ValueError(f"{place}: field 'query_response': expected a list of queries")
        for number, query in enumerate(queries):
            where = f"{place}, query_response[{number}]"
            if not isinstance(query, Mapping):
                raise ValueError(f"{where}: expected a query object, got {query!r:.60}")
            _need(query, _QUERY_KEYS, where, "each query")
            try:
                int(query["query_idx"])  # as the evaluator reads it ("3" passes)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{where}: field 'query_idx': expected a whole number, "
                    f"got {query['query_idx']!r}"
                ) from None


def _need(row: Mapping[str, Any], keys: tuple[str, ...], place: str, what: str) -> None:
    """Refuse `row` at `place` for the first of `keys` it lacks, saying what `what` needs."""
    for key in keys:
        if key not in row:
            raise ValueError(f"{place}: field {key!r}: absent; {what} needs {', '.join(keys)}")
