"""MEGA-Bench aggregation: query scores -> task score -> Core / Open / overall.

Every rule here reproduces the official MEGA-Bench code (TIGER-AI-Lab/MEGA-Bench,
`megabench/evaluation_processor.py` for query -> task and the evaluator summary,
`megabench/tools/derive_breakdown_results.py` for the Core / Open / overall summary), because a
leaderboard number is only comparable when it is computed the same way, down to which tasks count.

Facts that change numbers:
- a task's score is the sum of the *non-negative* query scores over the number of queries, so a query
  scored -1 (every field excluded) still counts in the denominator;
- Core is every task whose `eval_type` is not "llm" (rule metrics, constrained generation and program
  judge included), Open is every "llm" task;
- the overall score weights the two set means by their task counts, i.e. it is the mean over all tasks,
  not the mean of the two set scores.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

EVAL_TYPES: tuple[str, ...] = ("rule", "llm")
"""Core tasks are scored by rules, Open tasks by an LLM judge."""


@dataclass(frozen=True)
class TaskResult:
    """One entry of the official `task_results.json`.

    score: the task's mean score (`mean_task_score`); num_demo: 1 if the task shows a demonstration,
    else 0 (counted in the keyword `num_samples`); num_query: number of queries scored. A count read
    from a file keeps its JSON type (5.0 stays a float), because the official sums do.
    """

    name: str
    score: float
    eval_type: str
    num_demo: float
    num_query: float
    entry: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """The `task_results.json` row this result was read from, if any. The official merge and
    single-image tools copy such a row as it stands (a missing count stays missing, an extra key
    stays), so it is written back, and joined with the task metadata, as it was read."""

    def to_json(self) -> dict[str, Any]:
        """The official entry: the row it was read from, else the keys in the official order."""
        if self.entry is not None:
            return dict(self.entry)
        return {
            "name": self.name,
            "score": self.score,
            "eval_type": self.eval_type,
            "num_demo": self.num_demo,
            "num_query": self.num_query,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> TaskResult:
        """Read an entry; missing score and counts default to 0 as the official `.get(..., 0)` do."""
        return cls(
            name=str(entry["name"]),
            score=entry.get("score", 0),
            eval_type=str(entry["eval_type"]),
            num_demo=_count(entry, "num_demo"),
            num_query=_count(entry, "num_query"),
            entry=dict(entry),
        )


def _count(entry: Mapping[str, Any], key: str) -> float:
    """A row's count as written, 0 when absent (the official `.get(key, 0)`); anything but a number
    would fail in the official sums, so it is refused here with the row and key named."""
    value = entry.get(key, 0)
    if not isinstance(value, (int, float)):
        raise ValueError(f"task result {entry.get('name')!r}: {key} is {value!r}, not a number")
    return value


@dataclass(frozen=True)
class TaskScore:
    """A task's score as the evaluator stores it: `task_score` (sum) and `mean_task_score`."""

    task_score: float
    mean_task_score: float


def score_task(query_scores: Iterable[float]) -> TaskScore:
    """Query scores -> task score, as `EvaluationProcessor.process` does.

    Only query scores >= 0 are summed (a -1 query, or a NaN one, adds nothing) but every query counts in
    the denominator; a task with no queries scores 0.
    """
    scores = list(query_scores)
    task_score: float = 0
    for query_score in scores:
        if query_score >= 0:
            task_score += query_score
    mean_task_score = task_score / len(scores) if scores else 0
    return TaskScore(task_score=task_score, mean_task_score=mean_task_score)


@dataclass(frozen=True)
class EvaluatedTask:
    """What the evaluator summary needs from one scored task of `data_with_scores.json`."""

    eval_type: str
    num_demo: int
    num_query: int
    score: TaskScore


def evaluator_summary(tasks: Iterable[EvaluatedTask]) -> dict[str, Any]:
    """The `summary` block of the official `data_with_scores.json` (spec 6.3).

    Per eval type: macro = mean of task means, micro = total of task sums over the number of queries;
    `num_samples_all` counts queries plus one per demonstration. The official code divides by zero when
    no task was evaluated; here the overall means are 0 in that case.
    """
    num_tasks: dict[str, int] = dict.fromkeys(EVAL_TYPES, 0)
    num_queries: dict[str, int] = dict.fromkeys(EVAL_TYPES, 0)
    num_samples: dict[str, int] = dict.fromkeys(EVAL_TYPES, 0)
    sum_task_means: dict[str, float] = dict.fromkeys(EVAL_TYPES, 0)
    sum_task_sums: dict[str, float] = dict.fromkeys(EVAL_TYPES, 0)
    for task in tasks:
        num_tasks[task.eval_type] += 1
        num_queries[task.eval_type] += task.num_query
        num_samples[task.eval_type] += task.num_query + task.num_demo
        sum_task_means[task.eval_type] += task.score.mean_task_score
        sum_task_sums[task.eval_type] += task.score.task_score
    macro = {
        kind: float(sum_task_means[kind] / num_tasks[kind]) if num_tasks[kind] else 0
        for kind in num_tasks
    }
    micro = {
        kind: float(sum_task_sums[kind] / num_queries[kind]) if num_queries[kind] else 0
        for kind in num_tasks
    }
    total_tasks = sum(num_tasks.values())
    total_queries = sum(num_queries.values())
    return {
        "num_tasks_evaluated": num_tasks,
        "num_tasks_unevaluated": dict.fromkeys(num_tasks, 0),
        "num_queries_evaluated": num_queries,
        "num_queries_unevaluated": dict.fromkeys(num_tasks, 0),
        "num_samples_all": num_samples,
        "macro_mean_score": macro,
        "micro_mean_score": micro,
        "overall_macro_mean_score": sum(sum_task_means.values()) / total_tasks
        if total_tasks
        else 0,
        "overall_micro_mean_score": sum(sum_task_sums.values()) / total_queries
        if total_queries
        else 0,
    }


def merge_task_results(result_lists: Iterable[Iterable[TaskResult]]) -> list[TaskResult]:
    """Merge several score files' task lists as `merge_json_files` does.

    The first entry of a name wins, except that an "llm" entry replaces a non-"llm" one (a judged
    re-run of a task supersedes its rule-only scoring); a replaced entry keeps its original position.
    """
    merged: dict[str, TaskResult] = {}
    for results in result_lists:
        for result in results:
            known = merged.get(result.name)
            if known is None or (result.eval_type == "llm" and known.eval_type != "llm"):
                merged[result.name] = result
    return list(merged.values())


@dataclass(frozen=True)
class SetSummary:
    """One task set's summary: task count, query count (demos excluded) and macro mean score."""

    num_eval_tasks: int
    num_eval_samples: float
    macro_mean_score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "num_eval_tasks": self.num_eval_tasks,
            "num_eval_samples": self.num_eval_samples,
            "macro_mean_score": self.macro_mean_score,
        }


@dataclass(frozen=True)
class ModelSummary:
    """Core, Open and overall as in `summary_and_keyword_stats.json["model_summary"]`.

    A set with no task is None. The official tool raises TypeError when Core or Open is empty; here the
    overall score is None instead, so a Core-only run still gets its Core score and breakdown.
    """

    core: SetSummary | None
    open: SetSummary | None
    overall_score: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "core": self.core.to_json() if self.core else None,
            "open": self.open.to_json() if self.open else None,
            "overall_score": self.overall_score,
        }


def summarize_set(results: Sequence[TaskResult]) -> SetSummary | None:
    """Task count, query count and plain mean of task scores (`calculate_stats`)."""
    if not results:
        return None
    return SetSummary(
        num_eval_tasks=len(results),
        num_eval_samples=sum(result.num_query for result in results),
        macro_mean_score=sum(result.score for result in results) / len(results),
    )


def weighted_overall(core: SetSummary, open_set: SetSummary) -> float:
    """Task-count-weighted mean of the two set scores, i.e. the mean over all tasks.

    Written as the official formula (not as a plain mean) so that floats match to the last bit.
    """
    total_tasks = core.num_eval_tasks + open_set.num_eval_tasks
    weighted_sum = (
        core.macro_mean_score * core.num_eval_tasks
        + open_set.macro_mean_score * open_set.num_eval_tasks
    )
    return weighted_sum / total_tasks


def last_entry_per_task(results: Iterable[TaskResult]) -> list[TaskResult]:
    """One result per task name: the later entry of a repeated name, at the name's first position.

    This is what the official `collect_task_metadata` builds (a dict assigned in result order), and
    every official summary and keyword count runs over that dict, not over the result list.
    """
    by_name: dict[str, TaskResult] = {}
    for result in results:
        by_name[result.name] = result
    return list(by_name.values())


def model_summary(results: Sequence[TaskResult], known_tasks: Collection[str]) -> ModelSummary:
    """Core / Open / overall from per-task results (`calculate_model_summary`).

    Only tasks named in the task metadata (`known_tasks`) count. Scores are taken as stored, so an entry
    with score -1 in a hand-made results file would lower the mean exactly as it does officially.
    A task named twice counts once, as its later entry: the official summary runs over the
    `collect_task_metadata` dict, keyed by task name (see `last_entry_per_task`).
    """
    counted = [r for r in last_entry_per_task(results) if r.name in known_tasks]
    core_results = [r for r in counted if r.eval_type != "llm"]
    open_results = [r for r in counted if r.eval_type == "llm"]
    core = summarize_set(core_results)
    open_set = summarize_set(open_results)
    overall = weighted_overall(core, open_set) if core and open_set else None
    return ModelSummary(core=core, open=open_set, overall_score=overall)


@dataclass(frozen=True)
class CotChoice:
    """The paper's Table 2 rule: the better Core score of the two prompting modes, and the overall."""

    core_without_cot: float
    core_with_cot: float
    chosen: Literal["with_cot", "without_cot"]
    core: SetSummary
    open: SetSummary
    overall_score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "core_without_cot": self.core_without_cot,
            "core_with_cot": self.core_with_cot,
            "chosen": self.chosen,
            "core": self.core.to_json(),
            "open": self.open.to_json(),
            "overall_score": self.overall_score,
        }


def prefer_cot(core_with_cot: float | None, core_without_cot: float | None) -> bool:
    """Which Core run the overall score uses (paper Table 2): the higher one; a tie, or a
    setting that was not run, keeps the CoT run."""
    if core_without_cot is None:
        return True
    if core_with_cot is None:
        return False
    return core_with_cot >= core_without_cot


def overall_with_best_core(
    core_without_cot: SetSummary, core_with_cot: SetSummary, open_set: SetSummary
) -> CotChoice:
    """Overall score with the higher of the two Core scores (MEGA-Bench paper, Table 2 caption).

    The paper runs Core with and without the chain-of-thought instruction and Open once; "when computing
    the overall score, we use the higher Core score". A tie keeps the CoT run.
    """
    use_cot = prefer_cot(core_with_cot.macro_mean_score, core_without_cot.macro_mean_score)
    core = core_with_cot if use_cot else core_without_cot
    return CotChoice(
        core_without_cot=core_without_cot.macro_mean_score,
        core_with_cot=core_with_cot.macro_mean_score,
        chosen="with_cot" if use_cot else "without_cot",
        core=core,
        open=open_set,
        overall_score=weighted_overall(core, open_set),
    )
