"""Samples side by side: the same item as every compared model answered it, and whether each
got it right, so a reader can ask "what did B get wrong that A got right".

Rows are paired by sample id over the models' details (items some model lacks are left out, as
in the numbers). Right or wrong is the track's own reading of one item: MEGA-Bench full marks on
the query; SimpleVQA graded correct (no grade: neither); a judged track the model's games
against the baseline won overall (lost: wrong; a tie or unreadable verdicts: neither); any other
track a first score of at least 1/2. The filters pick the items where A and B (two of the
models) split one way, or both fail, within a task or category and a language; a link names
track, models and sample, and `parse_link` accepts only names the results hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from vlmscope.leaderboard.browsed_samples import reference_of, task_of
from vlmscope.leaderboard.compare.judged import games_view
from vlmscope.leaderboard.records import json_object
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.values import is_number

ALL = "all samples"
A_ONLY, B_ONLY, BOTH_WRONG = "A right, B wrong", "B right, A wrong", "both wrong"
FILTERS = (ALL, A_ONLY, B_ONLY, BOTH_WRONG)
ANY = "(any)"
RIGHT, WRONG, NEITHER = "right", "wrong", "neither"


@dataclass(frozen=True)
class Answer:
    """One model's side of a sample: its answer, what it scored, and the reading of it."""

    model: str
    response: str
    scored: str
    verdict: str
    """`right`, `wrong` or `neither` (see the module doc)."""


@dataclass(frozen=True)
class SideBySide:
    sample_id: str
    task: str
    language: str
    meta: Mapping[str, Any]
    reference: str
    answers: tuple[Answer, ...]

    def verdict_of(self, model: str) -> str:
        return next((a.verdict for a in self.answers if a.model == model), NEITHER)

    def label(self) -> str:
        """The sample picker's label: the id and each model's reading."""
        readings = ", ".join(f"{a.model}: {a.verdict}" for a in self.answers)
        return f"{self.sample_id}  [{readings}]"


def side_by_side(
    kind: str, rows_by_model: Mapping[str, Sequence[Mapping[str, Any]]]
) -> list[SideBySide]:
    """The samples every model has, in the first model's order, each with every model's side.
    `kind` is the track's comparison (`megabench`, `factuality`, `judged`, ...)."""
    by_id = {m: {str(r.get("sample_id")): r for r in rows} for m, rows in rows_by_model.items()}
    models = list(rows_by_model)
    if not models:
        return []
    shared = [i for i in by_id[models[0]] if all(i in by_id[m] for m in models)]
    samples = []
    for sample_id in shared:
        first = by_id[models[0]][sample_id]
        meta = json_object(first.get("meta"))
        samples.append(
            SideBySide(
                sample_id=sample_id,
                task=task_of(first),
                language=str(meta.get("language") or ""),
                meta=meta,
                reference=as_text(reference_of(json_object(first.get("extra")), meta)),
                answers=tuple(_answer(kind, m, by_id[m][sample_id]) for m in models),
            )
        )
    return samples


def _answer(kind: str, model: str, row: Mapping[str, Any]) -> Answer:
    scores = json_object(row.get("scores"))
    extra = json_object(row.get("extra"))
    outcome = str(row.get("outcome") or "")
    scored, verdict = READERS.get(kind, _generic)(row, scores, extra)
    status = "" if outcome in ("", "ok") else f" [{outcome}]"
    return Answer(model, as_text(row.get("response") or ""), as_text(scored + status), verdict)


Reading = tuple[str, str]
"""What a model scored on one item, in words, and whether that is right, wrong or neither."""


def _megabench(row: Mapping[str, Any], scores: Mapping[str, Any], _: Any) -> Reading:
    score = scores.get("query_score")
    fields = "".join(
        f"; {k.removeprefix('field:')} {v}" for k, v in scores.items() if k.startswith("field:")
    )
    full = isinstance(score, int | float) and is_number(score) and score >= 1
    return f"query score {score}{fields}", RIGHT if full else WRONG


def _factuality(row: Mapping[str, Any], _: Any, __: Any) -> Reading:
    grade = str(row.get("parsed") or "")
    if row.get("outcome") not in ("ok", "judge_unparseable") or not grade:
        return "no grade", NEITHER
    return f"graded {grade}", {"correct": RIGHT, "incorrect": WRONG, "not_attempted": WRONG}.get(
        grade, NEITHER
    )


def _judged(_: Any, __: Any, extra: Mapping[str, Any]) -> Reading:
    games, score = _games(extra)
    verdict = NEITHER if score is None or score == 0.5 else RIGHT if score > 0.5 else WRONG
    return f"vs {extra.get('baseline', 'the baseline')}: {games}", verdict


def _generic(_: Any, scores: Mapping[str, Any], __: Any) -> Reading:
    first = next((float(v) for v in scores.values() if is_number(v)), None)
    verdict = NEITHER if first is None else RIGHT if first >= 0.5 else WRONG
    return ", ".join(f"{k} {v}" for k, v in scores.items()), verdict


READERS = {"megabench": _megabench, "factuality": _factuality, "judged": _judged}


def _games(extra: Mapping[str, Any]) -> tuple[str, float | None]:
    """A judged prompt's games from the model's side, and its outcome (`judged.prompt_view`)."""
    games = extra.get("games")
    if not isinstance(games, list):
        return "not judged", None
    by_position = {
        bool(g.get("model_first")): g.get("judgment") for g in games if isinstance(g, Mapping)
    }
    return games_view((by_position.get(False), by_position.get(True)))


def pick(
    samples: Sequence[SideBySide],
    *,
    a: str,
    b: str,
    split: str = ALL,
    task: str = ANY,
    language: str = ANY,
) -> list[SideBySide]:
    """The samples where A and B split as asked, within the task and language asked."""
    wanted = {
        A_ONLY: lambda s: s.verdict_of(a) == RIGHT and s.verdict_of(b) == WRONG,
        B_ONLY: lambda s: s.verdict_of(b) == RIGHT and s.verdict_of(a) == WRONG,
        BOTH_WRONG: lambda s: s.verdict_of(a) == WRONG and s.verdict_of(b) == WRONG,
    }.get(split, lambda s: True)
    return [
        s for s in samples if wanted(s) and task in (ANY, s.task) and language in (ANY, s.language)
    ]


def choices(samples: Sequence[SideBySide]) -> tuple[list[str], list[str]]:
    """The task and language filters' choices (`ANY` first)."""
    tasks = sorted({s.task for s in samples})
    languages = sorted({s.language for s in samples if s.language})
    return [ANY, *tasks], [ANY, *languages]


def link_query(track: str, models: Sequence[str], sample_id: str) -> str:
    """The query string of a link to one sample of one comparison."""
    return "?" + urlencode({"compare": track, "models": ",".join(models), "sample": sample_id})


@dataclass(frozen=True)
class Link:
    track: str
    models: tuple[str, ...]
    sample_id: str


def parse_link(params: Mapping[str, str], known: Mapping[str, Sequence[str]]) -> Link | None:
    """A link's track, models and sample, kept only if the results hold them (`known`: track ->
    its models); None for a page opened without one, or with names the results do not hold."""
    track = params.get("compare", "")
    if track not in known:
        return None
    models = tuple(m for m in params.get("models", "").split(",") if m in known[track])
    if len(models) < 2:
        return None
    return Link(track, tuple(dict.fromkeys(models))[:4], params.get("sample", ""))
