"""The sample browser's records: one details row as what a reader needs to judge it.

As on MEGA-Bench's visualisation page: the response, the parsed answer, the reference, the
per-field scores and the judge's reply side by side, grouped by task. A judged conversation
(ProBench: `extra.turns`) is shown turn by turn, each question with the model's and the
baseline's answers, and both games' judge replies with their verdicts. A model that thought
before answering has its reasoning trace beside the answer (the page folds it), and an answer
cut off inside its trace says so. Every text is passed through `as_text`, so the page shows it
as text whatever the model wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vlmscope.leaderboard.pairwise_sample import pairwise_reference, pairwise_scores
from vlmscope.leaderboard.records import json_object
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.values import is_number

ALL_TASKS = "(all samples)"
NO_TASK = "(no task)"
# MEGA-Bench, SimpleVQA, generic, ProBench's track (singleround, multi-round, multi-linguistic)
TASK_KEYS = ("task_name", "task_category", "category", "chat_type")
REFERENCE_KEYS = ("answer", "reference", "gold")
SCORE_COLUMNS = ["Score", "Value", "Outcome"]
UNREADABLE_VERDICT = "judge_unparseable"  # the outcome of a row whose verdict was never read


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
    conversation: str = ""
    """The turns of a judged conversation ("" for a sample without `extra.turns`)."""
    reasoning: str = ""
    """The model's reasoning trace, kept apart from the scored answer ("" without one)."""
    reasoning_label: str = ""
    """What the trace is: its tokens, and whether the reply ended inside it."""


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
        if row.get("truncated_in_reasoning"):
            label += "  [cut off in reasoning]"
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
    if row.get("truncated_in_reasoning"):
        status += "; the reply ended inside its reasoning: no answer"
    return SampleView(
        sample_id=str(row.get("sample_id", "")),
        status=as_text(status),
        response=as_text(row.get("response", "")),
        parsed=as_text(row.get("parsed", "")),
        reference=pairwise_reference(as_text(reference_of(extra, meta)), extra),
        scores=pairwise_scores(scores_frame(row, extra), extra),
        judge=as_text(judge_text(extra, str(row.get("outcome") or ""))),
        meta=meta,
        conversation=as_text(conversation_text(extra)),
        reasoning=as_text(row.get("reasoning") or ""),
        reasoning_label=reasoning_label(row),
    )


def reasoning_label(row: Mapping[str, Any]) -> str:
    """`Reasoning trace (412 tokens, estimated; cut off: no answer)`: the fold's title; "" for
    an answer without a trace (and details written before traces were kept)."""
    if not row.get("reasoning") and not row.get("truncated_in_reasoning"):
        return ""
    tokens = row.get("reasoning_tokens")
    notes = [f"{tokens} tokens" if is_number(tokens) else "tokens not counted"]
    if row.get("reasoning_tokens_estimated"):
        notes[0] += ", estimated"
    if row.get("truncated_in_reasoning"):
        notes.append("cut off: no answer")
    return f"Reasoning trace ({'; '.join(notes)})"


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


def judge_text(extra: Mapping[str, Any], outcome: str = "") -> str:
    """The judge's replies (per field for MEGA-Bench, per attempt for graders, per game for
    pairwise tracks) and problems, each reply under a label saying which it is (`outcome`: the
    row's, which says whether a grader's last reply was readable)."""
    parts = []
    replies = extra.get("judge_replies")
    if isinstance(replies, Mapping):
        parts += [f"[{field}]\n{reply}" for field, reply in replies.items()]
    graders = extra.get("grader_replies")
    if isinstance(graders, list):
        labels = grader_labels(len(graders), outcome, failed=bool(extra.get("judge_error")))
        parts += [f"[{label}]\n{reply}" for label, reply in zip(labels, graders, strict=True)]
    games = extra.get("games")
    if isinstance(games, list):
        parts += [game_text(i, g) for i, g in enumerate(games, 1) if isinstance(g, Mapping)]
    problems = extra.get("judge_problems")
    if isinstance(problems, Mapping):
        parts += [f"[{field}] judge problem: {p}" for field, p in problems.items()]
    if extra.get("judge_error"):
        parts.append(f"judge error: {extra['judge_error']}")
    return "\n\n".join(parts)


def grader_labels(n: int, outcome: str = "", *, failed: bool = False) -> list[str]:
    """Labels for a grader's `n` replies in order. The grader is asked again only after a reply
    it could not read (SimpleVQA's `grade_response`), so every reply but the last was unreadable;
    the last was too if the row's outcome says so, or if asking again then failed (`failed`)."""
    if n == 1 and not failed and outcome != UNREADABLE_VERDICT:
        return ["grader reply"]
    labels = []
    for i in range(1, n + 1):
        notes = ["retry"] if i > 1 else []
        if i < n or failed:
            notes.append("unreadable: asked again")
        elif outcome == UNREADABLE_VERDICT:
            notes.append("unreadable")
        labels.append(f"grader reply {i}" + (f" ({'; '.join(notes)})" if notes else ""))
    return labels


def game_text(number: int, game: Mapping[str, Any]) -> str:
    """One pairwise game under a label: the order shown, the verdict read, and whether the judge
    had to be nudged (its first reply named no verdict; the reply shown is the first followed by
    the answer to the nudge)."""
    order = "model as A, baseline as B" if game.get("model_first") else "baseline as A, model as B"
    notes = [order, f"verdict {game.get('label') or '-'} ({game.get('outcome', '')})"]
    if isinstance(game.get("attempts"), int):
        n = game["attempts"]
        notes.append(f"{n} attempt{'' if n == 1 else 's'}")
    if game.get("nudged"):
        notes.append("nudged: the first reply named no verdict, then the reply to the nudge")
    if game.get("error"):
        notes.append(f"judge error: {game['error']}")
    return f"[game {number}: {'; '.join(notes)}]\n{game.get('judgment') or ''}"


def conversation_text(extra: Mapping[str, Any]) -> str:
    """A judged conversation turn by turn: the subset it belongs to, then each turn's question,
    the model's answer and the baseline's answer, each under a label ("" without turns)."""
    turns = extra.get("turns")
    if not isinstance(turns, list) or not turns:
        return ""
    model = f"model's answer ({extra['model']})" if extra.get("model") else "model's answer"
    baseline = f"baseline's answer ({extra['baseline']})" if extra.get("baseline") else None
    parts = []
    where = [str(extra["chat_type"])] if extra.get("chat_type") else []
    breakdown = extra.get("breakdown")
    if isinstance(breakdown, Mapping):
        where += [f"{k}: {v}" for k, v in breakdown.items() if v not in (None, "")]
    if where:
        parts.append(f"[{'; '.join(where)}]")
    for i, turn in enumerate(turns, 1):
        turn = turn if isinstance(turn, Mapping) else {}
        of = f"turn {i} of {len(turns)}"
        for key, label in (
            ("question", "question"),
            ("answer", model),
            ("baseline_answer", baseline or "baseline's answer"),
        ):
            parts.append(f"[{of}: {label}]\n{as_text(turn.get(key, ''))}")
    return "\n\n".join(parts)
