"""From scored MEGA-Bench samples to the entries of the official `data_with_scores.json`.

Task scores come from `aggregation.py`, which reproduces the official evaluator; this module only
arranges our scored samples into the shapes it (and MEGA-Bench's own tooling) reads. What counts
and what is written (`report.py`) is decided from these entries.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.messages import Response
from vlmscope.metrics.megabench.fields import aggregate_fields
from vlmscope.metrics.megabench.metric_types import eval_type_of
from vlmscope.metrics.megabench.query import QueryScore
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.megabench.aggregation import (
    EvaluatedTask,
    TaskScore,
    evaluator_summary,
    score_task,
)
from vlmscope.tracks.megabench.official_files import num_demo_of
from vlmscope.tracks.megabench.rows import QueryRow, group_by_task

TaskMeta = Mapping[str, Mapping[str, Any]]


def is_reference_answer(sample: Sample, response: Response) -> bool:
    """Whether `response` is the sample's reference answer verbatim (what the oracle replies).

    Such a response is scored as the official sanity check scores the ground-truth oracle
    (`sanity_check_scores`). It is decided from the answer, not from which backend gave it: the
    check is about the reference answer itself, as the official one is, and no model writes the
    oracle's fixed sentence followed by the gold by chance.
    """
    return sample.reference is not None and response.ok and response.text == sample.reference


def sanity_check_scores(row: QueryRow, result: QueryScore) -> tuple[dict[str, float], float]:
    """The official sanity-check evaluation of the oracle: fields whose gold is "" and every
    `program_judge` field are set to 1 instead of scored (the oracle cannot write programs or
    poems)."""
    metrics = row.metric_info.get("field_score_function", {})
    scores = dict(result.field_scores)
    for field in scores:
        if row.answer.get(field) == "" or metrics.get(field) == "program_judge":
            scores[field] = 1.0
    aggregation = row.metric_info.get("aggregation", {})
    query = aggregate_fields(
        aggregation.get("function"), scores, aggregation.get("field_weights", {})
    )
    return scores, query


def parsed_text(parsed: Any) -> str:
    return (
        parsed if isinstance(parsed, str) else json.dumps(parsed, ensure_ascii=False, default=str)
    )


def json_value(value: Any) -> Any:
    """`value` as JSON reads it back (tuples become lists), for the official `info` block;
    `str(value)` when JSON cannot hold it (a set, a tuple key)."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=True))
    except (TypeError, ValueError):
        return str(value)


def scored_task_entries(
    rows: Sequence[QueryRow], samples: Sequence[Sample], scored: Sequence[Scored], *, cot: bool
) -> list[dict[str, Any]]:
    """The task entries of the official `data_with_scores.json` for one prompt setting: each
    task of `rows` that has scored samples in that setting, with its per-query scores, task
    score and eval type, in the data's task order. A task scored in part is an error: its
    score would silently cover fewer queries than the data has."""
    by_id = {sample.id: result for sample, result in zip(samples, scored, strict=True)}
    suffix = "" if cot else ":no_cot"
    tasks = []
    for task_name, task_rows in group_by_task(list(rows)).items():
        found = [by_id.get(f"{task_name}/{i}{suffix}") for i in range(len(task_rows))]
        if all(result is None for result in found):
            continue
        queries = []
        for query_idx, (row, result) in enumerate(zip(task_rows, found, strict=True)):
            if result is None:
                raise ValueError(f"{row.where}: no scored result for query {query_idx}")
            queries.append(_query_entry(row, query_idx, result))
        first = task_rows[0]
        task_score = score_task(q["scores"]["query"] for q in queries)
        tasks.append(
            {
                "task_name": task_name,
                "global_description": first.task_description,
                "global_images": list(first.global_media),
                "example_info": {
                    "image_paths": list(first.example_media),
                    "example_text": first.example_text,
                },
                "query_response": queries,
                "task_score": task_score.task_score,
                "mean_task_score": task_score.mean_task_score,
                "eval_type": eval_type_of(first.metric_info),
            }
        )
    return tasks


def _query_entry(row: QueryRow, query_idx: int, result: Scored) -> dict[str, Any]:
    fields = {
        k.removeprefix("field:"): v for k, v in result.scores.items() if k.startswith("field:")
    }
    return {
        "response": result.extra.get("response", ""),
        "correct_answer": row.answer,
        "global_idx": row.id,
        "query_idx": query_idx,
        "images": list(row.query_media),
        "query_text": row.query_text,
        "scores": {
            "field": fields,
            "info": result.extra.get("field_info", {}),
            "query": result.scores["query_score"],
        },
    }


def data_with_scores(tasks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The official `data_with_scores.json` document of these task entries: the entries and the
    evaluator's summary block, computed from the scores the entries already hold."""
    evaluated = [
        EvaluatedTask(
            task["eval_type"],
            num_demo_of(task),
            len(task["query_response"]),
            TaskScore(task["task_score"], task["mean_task_score"]),
        )
        for task in tasks
    ]
    return {"data": list(tasks), "summary": evaluator_summary(evaluated)}
