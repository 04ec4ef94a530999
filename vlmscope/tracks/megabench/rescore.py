"""Re-score an official MEGA-Bench response file end to end.

Input: `all_query_responses.json` as the official harness writes it (one entry per task with its
`query_response` list) and the task samples (per query, the dataset's `metric_info` and `eval_context`
as Python-literal strings, `[{"task_name", "task_samples": [...]}, ...]`). Output: the three official
files (`data_with_scores.json`, `task_results.json`, `summary_and_keyword_stats.json`).

This is the driver of TIGER-AI-Lab/MEGA-Bench `megabench/evaluation_processor.py` followed by
`megabench/tools/derive_breakdown_results.py`; re-scoring responses produced by the official harness
(or by any other runner) with it is how parity with published numbers is checked. Per-query scoring is
`vlmscope.metrics.megabench.query.score_query`, imported on first use.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.metric_types import (
    UnknownMetricError,
    eval_type_of,
    unknown_metrics,
)
from vlmscope.tracks.megabench.aggregation import (
    EvaluatedTask,
    TaskResult,
    evaluator_summary,
    score_task,
)
from vlmscope.tracks.megabench.keywords import TaskMeta
from vlmscope.tracks.megabench.official_files import (
    DATA_WITH_SCORES,
    SUMMARY_AND_KEYWORD_STATS,
    TASK_RESULTS,
    merge_scored_files,
    num_demo_of,
    summary_and_keyword_stats,
    write_data_with_scores,
    write_json,
    write_task_results,
)


class ScoredQuery(Protocol):
    """What rescoring reads from a query scorer's result (`QueryScore` provides it)."""

    @property
    def field_scores(self) -> Mapping[str, float]: ...
    @property
    def query_score(self) -> float: ...
    @property
    def field_info(self) -> Mapping[str, Any]: ...
    @property
    def field_outcomes(self) -> Mapping[str, str]: ...


class QueryScorer(Protocol):
    """The signature of `vlmscope.metrics.megabench.query.score_query`."""

    def __call__(
        self,
        *,
        task_name: str,
        metric_info: Mapping[str, Any],
        eval_context: Mapping[str, Any],
        correct_answer: Mapping[str, Any],
        response: str | None,
        query_text: str,
        global_description: str,
        judge_replies: Mapping[str, str] | None = None,
    ) -> ScoredQuery: ...


JudgeReplies = Mapping[tuple[str, int], Mapping[str, str]]
"""(task name, query_idx) -> judged field -> the judge's raw reply."""


def default_query_scorer() -> QueryScorer:
    """The official-parity query scorer (imported lazily: it pulls in every metric's dependencies)."""
    from vlmscope.metrics.megabench.query import score_query

    return score_query


def decode_literal(value: Any) -> Any:
    """Dataset columns hold Python literals (never JSON); already-decoded values pass through.

    A task's samples repeat the same `metric_info` (and often the same `eval_context`) text:
    each text is read once and every caller gets its own copy (callers may change it)."""
    return copy.deepcopy(_read_literal(value)) if isinstance(value, str) else value


@lru_cache(maxsize=4096)
def _read_literal(text: str) -> Any:
    return python_literal(text)


def samples_by_task(samples: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    return {entry["task_name"]: list(entry["task_samples"]) for entry in samples}


@dataclass(frozen=True)
class ScoredResponses:
    """A scored `data_with_scores.json` document, and how often a field was not scored normally.

    problem_outcomes counts field outcomes other than "scored" (metric errors, unparseable or missing
    judge verdicts): they are scored 0 as officially, and counted here so that they are seen.
    """

    document: dict[str, Any]
    problem_outcomes: dict[str, int] = field(default_factory=dict)


def _score_one_query(
    scorer: QueryScorer,
    task: Mapping[str, Any],
    query: Mapping[str, Any],
    metric_info: Mapping[str, Any],
    task_samples: Sequence[Mapping[str, Any]],
    judge_replies: Mapping[str, str] | None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The query entry with its official `scores` block, and its problem outcomes."""
    query_idx = int(query["query_idx"])
    if not 0 <= query_idx < len(task_samples):
        raise ValueError(f"task {task['task_name']!r}: no sample for query_idx {query_idx}")
    result = scorer(
        task_name=task["task_name"],
        metric_info=metric_info,
        eval_context=decode_literal(task_samples[query_idx]["eval_context"]),
        correct_answer=query["correct_answer"],
        response=query["response"],
        query_text=query["query_text"],
        global_description=task["global_description"],
        judge_replies=judge_replies,
    )
    scores: dict[str, Any] = {
        "field": dict(result.field_scores),
        "info": dict(result.field_info),
        "query": result.query_score,
    }
    problems = {name: kind for name, kind in result.field_outcomes.items() if kind != "scored"}
    if problems:  # an extra key the official tools ignore; keeps judge failures visible
        scores["outcomes"] = problems
    return {**query, "scores": scores}, problems


PROGRAM_METRICS = frozenset({"program_judge"})
"""Metrics that run the response as a program in the sandbox (seconds per query, mostly waiting)."""


def runs_programs(metric_info: Mapping[str, Any]) -> bool:
    """Whether a task's field or auxiliary metrics include one of `PROGRAM_METRICS`."""
    for key in ("field_score_function", "global_aux_metrics"):
        block = metric_info.get(key) or {}
        names = block.values() if isinstance(block, Mapping) else [block]
        if any(isinstance(name, str) and name.lower() in PROGRAM_METRICS for name in names):
            return True
    return False


def _checked_metric_info(
    task: Mapping[str, Any], task_samples: Mapping[str, Sequence[Mapping[str, Any]]]
) -> Mapping[str, Any]:
    """The task's decoded `metric_info`, after the checks the official evaluator fails on."""
    name = task["task_name"]
    if not task_samples.get(name):
        raise ValueError(f"task {name!r} has responses but no samples (metric_info)")
    metric_info: Mapping[str, Any] = decode_literal(task_samples[name][0]["metric_info"])
    if unknown := unknown_metrics(metric_info):
        raise UnknownMetricError(f"task {name!r}: metric_info names unknown metric(s) {unknown}")
    for query in task["query_response"]:
        query_idx = int(query["query_idx"])
        if not 0 <= query_idx < len(task_samples[name]):
            raise ValueError(f"task {name!r}: no sample for query_idx {query_idx}")
    return metric_info


def _program_workers(requested: int | None) -> int:
    if requested is not None:
        return max(1, requested)
    from vlmscope.sandbox.pool import default_workers  # the shared pool's size

    return default_workers()


ScoredQueryEntry = tuple[dict[str, Any], dict[str, str]]


def score_responses(
    responses: Sequence[Mapping[str, Any]],
    samples: Sequence[Mapping[str, Any]],
    *,
    scorer: QueryScorer | None = None,
    judge_replies: JudgeReplies | None = None,
    program_workers: int | None = None,
) -> ScoredResponses:
    """Score every query of a response file and build the official `data_with_scores.json`.

    The task's metric configuration is read from its first sample and each query's `eval_context` from
    the sample at its `query_idx`, as the official evaluator does. A task absent from `samples`, one
    whose `metric_info` names an unknown metric, or a `query_idx` without a sample is an error (the
    official evaluator fails on each too); the whole file is checked before anything is scored.

    Queries of tasks that run programs (`runs_programs`) are handed, as soon as the file is checked,
    to `program_workers` threads (default: one per worker of the shared sandbox pool; 1: one after
    another, after the other tasks) that wait on the sandbox while this thread scores every other
    query: a program that hangs holds one thread for its 2 s limit, not the whole run. Every query
    is scored on its own, so the order changes no score; the document keeps the file's order.
    """
    scorer = scorer or default_query_scorer()
    task_samples = samples_by_task(samples)
    metric_infos = [_checked_metric_info(task, task_samples) for task in responses]

    def score_query_at(index: int, query: Mapping[str, Any]) -> ScoredQueryEntry:
        task = responses[index]
        name = task["task_name"]
        replies = judge_replies.get((name, int(query["query_idx"]))) if judge_replies else None
        return _score_one_query(
            scorer, task, query, metric_infos[index], task_samples[name], replies
        )

    programs = [index for index, info in enumerate(metric_infos) if runs_programs(info)]
    workers = _program_workers(program_workers) if programs else 1
    scored = _all_queries_scored(responses, programs, workers, score_query_at)
    return _scored_document(responses, metric_infos, scored)


def _all_queries_scored(
    responses: Sequence[Mapping[str, Any]],
    programs: Sequence[int],
    workers: int,
    score_query_at: Callable[[int, Mapping[str, Any]], ScoredQueryEntry],
) -> dict[int, list[ScoredQueryEntry]]:
    """Each task's scored queries, by the task's index in the file. With more than one worker,
    the queries of the program tasks (`programs`) are submitted first, then every other task is
    scored on this thread while they wait on the sandbox; with one, the program tasks come last.
    A failure (or an interrupt) cancels what has not started and waits for what has."""

    def queries_of(index: int) -> Sequence[Mapping[str, Any]]:
        return responses[index]["query_response"]

    def score_queries(index: int) -> list[ScoredQueryEntry]:
        return [score_query_at(index, query) for query in queries_of(index)]

    run_later = set(programs)
    scored: dict[int, list[ScoredQueryEntry]] = {}
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="megabench-programs") as pool:
        try:
            pending: dict[int, list[Future[ScoredQueryEntry]]] = {}
            if workers > 1:
                for index in programs:
                    pending[index] = [
                        pool.submit(score_query_at, index, query) for query in queries_of(index)
                    ]
            for index in range(len(responses)):
                if index not in run_later:
                    scored[index] = score_queries(index)
            for index in programs:
                futures = pending.get(index)
                scored[index] = (
                    [future.result() for future in futures]
                    if futures is not None
                    else score_queries(index)
                )
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return scored


def _scored_document(
    responses: Sequence[Mapping[str, Any]],
    metric_infos: Sequence[Mapping[str, Any]],
    scored: Mapping[int, list[ScoredQueryEntry]],
) -> ScoredResponses:
    """The official `data_with_scores.json` in the file's task order: each task with its scored
    queries, its task score and eval type, and the evaluator's summary over all of them."""
    scored_tasks: list[dict[str, Any]] = []
    evaluated: list[EvaluatedTask] = []
    problem_counts: Counter[str] = Counter()
    for index, task in enumerate(responses):
        queries = []
        for entry, problems in scored[index]:
            queries.append(entry)
            problem_counts.update(problems.values())
        task_score = score_task(query["scores"]["query"] for query in queries)
        eval_type = eval_type_of(metric_infos[index])
        scored_tasks.append(
            {
                **task,
                "query_response": queries,
                "task_score": task_score.task_score,
                "mean_task_score": task_score.mean_task_score,
                "eval_type": eval_type,
            }
        )
        evaluated.append(EvaluatedTask(eval_type, num_demo_of(task), len(queries), task_score))
    document = {"data": scored_tasks, "summary": evaluator_summary(evaluated)}
    return ScoredResponses(document=document, problem_outcomes=dict(problem_counts))


@dataclass(frozen=True)
class RescoreOutputs:
    """The three official documents of one re-scoring run."""

    data_with_scores: dict[str, Any]
    task_results: list[TaskResult]
    summary_and_keyword_stats: dict[str, Any]
    problem_outcomes: dict[str, int]


def rescore(
    responses: Sequence[Mapping[str, Any]],
    samples: Sequence[Mapping[str, Any]],
    *,
    all_meta: Mapping[str, TaskMeta],
    extra_scored: Sequence[Any] = (),
    scorer: QueryScorer | None = None,
    judge_replies: JudgeReplies | None = None,
    program_workers: int | None = None,
) -> RescoreOutputs:
    """Responses -> data_with_scores -> task_results -> summary and keyword stats.

    `extra_scored` are other scored documents (e.g. the Open set already judged, a
    `data_with_scores_open.json`) merged into the task results the official way: this run's tasks come
    first, and an "llm" entry replaces a "rule" entry of the same task. `program_workers`: see
    `score_responses`.
    """
    scored = score_responses(
        responses,
        samples,
        scorer=scorer,
        judge_replies=judge_replies,
        program_workers=program_workers,
    )
    results = merge_scored_files([scored.document, *extra_scored])
    return RescoreOutputs(
        data_with_scores=scored.document,
        task_results=results,
        summary_and_keyword_stats=summary_and_keyword_stats(results, all_meta),
        problem_outcomes=scored.problem_outcomes,
    )


def write_rescore_outputs(out_dir: str | Path, outputs: RescoreOutputs) -> list[Path]:
    """Write the three files into `out_dir` under their official names."""
    folder = Path(out_dir)
    return [
        write_data_with_scores(folder / DATA_WITH_SCORES, outputs.data_with_scores),
        write_task_results(folder / TASK_RESULTS, outputs.task_results),
        write_json(folder / SUMMARY_AND_KEYWORD_STATS, outputs.summary_and_keyword_stats),
    ]
