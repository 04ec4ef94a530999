"""The sample browser's records: one details row as what a reader needs to judge it.

As on MEGA-Bench's visualisation page: the response, the parsed answer, the reference, the
per-field scores and the judge's reply side by side, grouped by task. Every text is passed
through `as_text`, so the page shows it as text whatever the model wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vlmscope.leaderboard.records import json_object
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.values import is_number

ALL_TASKS = "(all samples)"
NO_TASK = "(no task)"
TASK_KEYS = ("task_name", "task_category", "category")  # MEGA-Bench, SimpleVQA, generic
REFERENCE_KEYS = ("answer", "reference", "gold")
SCORE_COLUMNS = ["Score", "Value", "Outcome"]


@dataclass(frozen=True)
class SampleView:
    sample_id: str
    status: str
    response: str
    parsed: str
    reference: str
    scores: pd.DataFrame
    judge: str
    meta: dict[str, Any]


def task_of(row: Mapping[str, Any]) -> str:
    meta = json_object(row.get("meta"))
    for key in TASK_KEYS:
        if meta.get(key) not in (None, ""):
            return str(meta[key])
    return NO_TASK


def task_names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every task of the rows, after the choice of all samples."""
    return [ALL_TASKS, *sorted({task_of(r) for r in rows})]


def sample_choices(rows: Sequence[Mapping[str, Any]], task: str) -> list[tuple[str, str]]:
    """(label, sample id) of the task's samples; the label shows the score and any problem."""
    choices = []
    for row in rows:
        if task not in (ALL_TASKS, task_of(row)):
            continue
        sample_id = str(row.get("sample_id", ""))
        score = json_object(row.get("scores")).get("query_score")
        label = sample_id if not is_number(score) else f"{sample_id}  (score {score:.2f})"
        if row.get("outcome") not in (None, "", "ok"):
            label += f"  [{row['outcome']}]"
        choices.append((label, sample_id))
    return choices


def find_sample(rows: Sequence[Mapping[str, Any]], sample_id: str) -> Mapping[str, Any] | None:
    return next((r for r in rows if str(r.get("sample_id")) == sample_id), None)


def sample_view(row: Mapping[str, Any]) -> SampleView:
    extra = json_object(row.get("extra"))
    meta = json_object(row.get("meta"))
    status = f"status: {row.get('status', '')}; outcome: {row.get('outcome', '')}"
    if row.get("error"):
        status += f"; error: {row['error']}"
    return SampleView(
        sample_id=str(row.get("sample_id", "")),
        status=as_text(status),
        response=as_text(row.get("response", "")),
        parsed=as_text(row.get("parsed", "")),
        reference=as_text(reference_of(extra, meta)),
        scores=scores_frame(row, extra),
        judge=as_text(judge_text(extra)),
        meta=meta,
    )


def reference_of(extra: Mapping[str, Any], meta: Mapping[str, Any]) -> Any:
    if "reference" in extra:
        return extra["reference"]
    return next((meta[k] for k in REFERENCE_KEYS if k in meta), "")


def scores_frame(row: Mapping[str, Any], extra: Mapping[str, Any]) -> pd.DataFrame:
    """Each score of the row; a `field:<name>` score carries its field's outcome if not scored."""
    outcomes = extra.get("field_outcomes")
    outcomes = outcomes if isinstance(outcomes, Mapping) else {}
    rows = []
    for name, value in json_object(row.get("scores")).items():
        field = name.removeprefix("field:")
        outcome = outcomes.get(field, "") if name.startswith("field:") else ""
        rows.append([as_text(name), float(value) if is_number(value) else None, as_text(outcome)])
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def judge_text(extra: Mapping[str, Any]) -> str:
    """The judge's replies (per field for MEGA-Bench, per attempt for graders) and problems."""
    parts = []
    replies = extra.get("judge_replies")
    if isinstance(replies, Mapping):
        parts += [f"[{field}]\n{reply}" for field, reply in replies.items()]
    graders = extra.get("grader_replies")
    if isinstance(graders, list):
        parts += [str(reply) for reply in graders]
    problems = extra.get("judge_problems")
    if isinstance(problems, Mapping):
        parts += [f"[{field}] judge problem: {p}" for field, p in problems.items()]
    if extra.get("judge_error"):
        parts.append(f"judge error: {extra['judge_error']}")
    return "\n\n".join(parts)
