"""From scored MEGA-Bench samples to the official numbers and files.

Task scores, Core / Open / overall and the keyword breakdown come from `aggregation.py` and
`keywords.py`, which reproduce the official tools; this module only arranges our scored samples
into the shapes those functions (and MEGA-Bench's own tooling) read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vlmscope.metrics.megabench.fields import aggregate_fields
from vlmscope.metrics.megabench.query import QueryScore
from vlmscope.metrics.megabench.registry import eval_type_of
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.megabench.aggregation import (
    EvaluatedTask,
    evaluator_summary,
    prefer_cot,
    score_task,
)
from vlmscope.tracks.megabench.keywords import load_task_meta
from vlmscope.tracks.megabench.official_files import summary_and_keyword_stats as official_summary
from vlmscope.tracks.megabench.official_files import (
    task_results_from_scored,
    write_data_with_scores,
    write_json,
    write_task_results,
)
from vlmscope.tracks.megabench.rows import QueryRow, group_by_task
from vlmscope.tracks.megabench.single_image import single_image_subset

TaskMeta = Mapping[str, Mapping[str, Any]]


def task_meta_for(data_dir: Path) -> dict[str, dict[str, Any]]:
    """The data's own `all_task_meta.json` if it has one, else the 505-task file we ship."""
    local = data_dir / "all_task_meta.json"
    return load_task_meta(local if local.exists() else None)


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


def data_with_scores(
    rows: Sequence[QueryRow], samples: Sequence[Sample], scored: Sequence[Scored], *, cot: bool
) -> dict[str, Any]:
    """The official `data_with_scores.json` document for one prompt setting."""
    by_id = {sample.id: (sample, s) for sample, s in zip(samples, scored, strict=True)}
    suffix = "" if cot else ":no_cot"
    tasks, evaluated = [], []
    for task_name, task_rows in group_by_task(list(rows)).items():
        queries = []
        for query_idx, row in enumerate(task_rows):
            found = by_id.get(f"{task_name}/{query_idx}{suffix}")
            if found is None:
                continue
            sample, result = found
            fields = {
                k.removeprefix("field:"): v
                for k, v in result.scores.items()
                if k.startswith("field:")
            }
            queries.append(
                {
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
            )
        if not queries:
            continue
        first = task_rows[0]
        task_score = score_task(q["scores"]["query"] for q in queries)
        eval_type = eval_type_of(first.metric_info)
        num_demo = 1 if first.example_text or first.example_media else 0
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
                "eval_type": eval_type,
            }
        )
        evaluated.append(EvaluatedTask(eval_type, num_demo, len(queries), task_score))
    return {"data": tasks, "summary": evaluator_summary(evaluated)}


def summarize(
    rows: Sequence[QueryRow], samples: Sequence[Sample], scored: Sequence[Scored], meta: TaskMeta
) -> dict[str, Any]:
    """Headline numbers first (overall, Core, Open), then the official summary documents.

    With both prompt settings, Core is the better of the two (paper Table 2) and overall is
    recomputed with the chosen Core tasks.
    """
    settings = sorted({bool(s.meta["cot"]) for s in samples}, reverse=True)
    documents = {cot: data_with_scores(rows, samples, scored, cot=cot) for cot in settings}
    open_results = [
        r
        for r in task_results_from_scored(documents.get(True, {"data": []}))
        if r.eval_type == "llm"
    ]
    core_by_setting = {
        cot: [r for r in task_results_from_scored(doc) if r.eval_type != "llm"]
        for cot, doc in documents.items()
    }
    core_scores = {
        cot: _mean([r.score for r in results]) for cot, results in core_by_setting.items()
    }
    best = prefer_cot(core_scores.get(True), core_scores.get(False))
    chosen = core_by_setting[best] + open_results
    full = official_summary(chosen, meta)
    single = official_summary(single_image_subset(chosen, meta), meta)
    model = full["model_summary"]
    summary: dict[str, Any] = {
        "overall": model["overall_score"],
        "core": (model["core"] or {}).get("macro_mean_score"),
        "open": (model["open"] or {}).get("macro_mean_score"),
    }
    if True in core_scores:
        summary["core_with_cot"] = core_scores[True]
    if False in core_scores:
        summary["core_without_cot"] = core_scores[False]
    summary["core_setting"] = "with_cot" if best else "without_cot"
    summary["single_image_overall"] = single["model_summary"]["overall_score"]
    summary["outcomes"] = _outcome_counts(scored)
    summary["summary_and_keyword_stats"] = full
    summary["single_image"] = single
    return summary


def write_official_files(
    out_dir: Path,
    rows: Sequence[QueryRow],
    samples: Sequence[Sample],
    scored: Sequence[Scored],
    meta: TaskMeta,
) -> None:
    """`data_with_scores.json`, `task_results.json`, `summary_and_keyword_stats.json` (+ the
    single-image subset under `single_image/`), in the official shapes and names."""
    document = data_with_scores(rows, samples, scored, cot=True)
    results = task_results_from_scored(document)
    write_data_with_scores(out_dir / "data_with_scores.json", document)
    write_task_results(out_dir / "task_results.json", results)
    write_json(out_dir / "summary_and_keyword_stats.json", official_summary(results, meta))
    single = single_image_subset(results, meta)
    write_task_results(out_dir / "single_image" / "task_results.json", single)
    write_json(
        out_dir / "single_image" / "summary_and_keyword_stats.json", official_summary(single, meta)
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _outcome_counts(scored: Sequence[Scored]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for s in scored:
        for outcome in s.extra.get("field_outcomes", {}).values():
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts
