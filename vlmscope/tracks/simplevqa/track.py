"""SimpleVQA track: factual visual questions, graded Correct / Incorrect / Not attempted.

- data: `m-a-p/SimpleVQA` `test.parquet` (or the JSON + image folder layout) from `data_dir`,
  default the sample shipped in `vlmscope/samples/simplevqa`;
- request: the official prompt (image, then the short-named-entity instruction in the row's
  language and the question), greedy;
- score: the grader prompt (paper appendix by default) sent text-only to the configured judge
  (`grader: llm`, the paper's protocol); or, with `grader: offline_match`, no judge at all: the
  gold answer matched in the response (`match_grader`, not the paper's protocol, so labelled);
- aggregate: CO, IN, NA, CGA, F overall, by language, task category and domain, with seeded
  bootstrap CIs (rates are null where nothing was graded); optionally the atomic-question
  analysis. Computed once into a `SimpleVQAReport`, which also writes the same tables as Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationError

from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Response
from vlmscope.stand_ins import StandIn
from vlmscope.tracks.base import Sample, Scored, ScoringContext, TrackBase, TrackOptions
from vlmscope.tracks.simplevqa.atomic import atomic_analysis
from vlmscope.tracks.simplevqa.grader_prompt import DEFAULT_GRADER, ReplyFormat, load_grader_prompt
from vlmscope.tracks.simplevqa.grading import Grade, GradeVerdicts, grade_response
from vlmscope.tracks.simplevqa.match_grader import PROTOCOL as OFFLINE_PROTOCOL
from vlmscope.tracks.simplevqa.match_grader import match_grade
from vlmscope.tracks.simplevqa.metrics import (
    METRICS,
    NO_GRADE_NOTE,
    factuality_table,
    group_rng,
    grouped_tables,
)
from vlmscope.tracks.simplevqa.question_prompt import question_request
from vlmscope.tracks.simplevqa.report import SimpleVQAReport
from vlmscope.tracks.simplevqa.rows import SAMPLE_DIR, SimpleVQARow, read_rows

ORIGINAL, ATOMIC = "original", "atomic"
_BREAKDOWNS = {
    "by_language": "language",
    "by_task_category": "task_category",
    "by_domain": "subject_category",
}


class SimpleVQAOptions(TrackOptions):
    grader: Literal["llm", "offline_match"] = Field(
        default="llm",
        description="llm: the paper's grader prompt sent to `judge`; offline_match: the gold "
        "answer matched in the response, no judge (not the paper's protocol)",
    )
    grader_prompt: str = Field(
        default=DEFAULT_GRADER, description="packaged prompt file name or a path to a prompt file"
    )
    reply_format: ReplyFormat | None = Field(
        default=None, description="how to read grader replies; default: the prompt file's header"
    )
    atomic_questions: bool = Field(default=False, description="also ask each row's atomic question")
    bootstrap_rounds: int = Field(default=1000, ge=0)
    seed: int = 0


class SimpleVQATrack(TrackBase):
    name: ClassVar[str] = "simplevqa"
    judge_settings: ClassVar[JudgeSettings] = JudgeSettings(max_new_tokens=512, temperature=0.0)
    """Greedy grading: VLMEvalKit grades at temperature 1, which makes a leaderboard
    unrepeatable; a verdict is one letter or a one-entry JSON dict, well within 512 tokens."""

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        if config.subset is not None:
            raise ValueError(f"subset: {config.subset!r}: SimpleVQA has no subsets to pick")
        self.options = _validated_options(config.options)
        try:
            self.grader = load_grader_prompt(self.options.grader_prompt, self.options.reply_format)
        except ValueError as err:
            raise ValueError(f"options.grader_prompt: {err}") from err
        if self.options.grader == "llm" and config.judge is None:
            raise ValueError(
                "judge: the simplevqa track grades responses with a judge; set `judge:`, or "
                "set options.grader: offline_match to grade by answer matching without one"
            )
        if self.options.grader == "offline_match" and config.judge is not None:
            raise ValueError(
                "judge: options.grader is offline_match, which asks no judge; remove `judge:` "
                "or set options.grader: llm"
            )
        self.data_dir = Path(config.data_dir) if config.data_dir else SAMPLE_DIR
        self.rows: list[SimpleVQARow] = read_rows(self.data_dir)[:limit]
        self.panel_verdicts = GradeVerdicts(self.grader.reply_format)

    def samples(self, model: ModelConfig | None = None) -> list[Sample]:
        """Each row's question, then (with atomic questions on) its atomic question.

        `limit` counts rows, so an original and its atomic question always come together. A row
        without an atomic question gets no atomic sample; the analysis counts it as unpaired.
        """
        samples = []
        for row in self.rows:
            samples.append(_sample(row, ORIGINAL, row.question, row.answer))
            if self.options.atomic_questions and row.atomic_question.strip():
                samples.append(_sample(row, ATOMIC, row.atomic_question, row.atomic_fact))
        return samples

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        meta = sample.meta
        if not response.ok:
            return Scored(
                sample.id, {}, outcome=response.status.value, extra={"error": response.error}
            )
        if self.options.grader == "offline_match":
            verdict = match_grade(meta["answer"], response.text)
            return Scored(
                sample.id,
                _one_hot(verdict.grade),
                parsed=verdict.grade.value,
                extra={"grader": "offline_match", "rule": verdict.rule},
            )
        if context.judge is None:
            return Scored(sample.id, {}, outcome="judge_missing")
        result = await grade_response(
            context.judge,
            self.judge_settings,
            self.grader,
            meta["question"],
            meta["answer"],
            response.text,
        )
        scores = {} if result.grade in (None, Grade.UNPARSEABLE) else _one_hot(result.grade)
        return Scored(
            sample.id,
            scores,
            parsed=result.grade.value if result.grade else None,
            outcome=result.outcome,
            extra={
                "grader_replies": list(result.replies),
                "judge_error": result.judge_error,
                **({"grader_reasoning": dict(result.reasoning)} if result.reasoning else {}),
            },
        )

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> SimpleVQAReport:
        """Headline rates first (the run table shows the first few), then breakdowns and counts;
        bootstrapped here once (the Markdown tables are rendered from this summary).

        `n_items` is the number of rows asked (one original question each): a sample without a
        scored result is an error, never a row quietly left out of the rates."""
        by_id = {s.sample_id: s for s in scored}
        if missing := [s.id for s in samples if s.id not in by_id]:
            raise ValueError(f"simplevqa: no scored result for sample(s) {missing[:5]}")
        originals = [(s, by_id[s.id]) for s in samples if s.meta["variant"] == ORIGINAL]
        graded = [(s, g) for s, sc in originals if (g := _grade(sc)) is not None]
        grades = [g for _, g in graded]
        rounds, seed = self.options.bootstrap_rounds, self.options.seed
        overall = factuality_table(grades, rounds=rounds, rng=group_rng(seed, "overall"))
        summary: dict[str, Any] = {k: overall[k] for k in METRICS}
        outcomes = _count(sc.outcome for _, sc in originals)
        summary.update(
            n_items=len(originals),
            n_graded=overall["n_graded"],
            n_judge_unparseable=overall["n_judge_unparseable"],
            outcomes=outcomes,
            overall=overall,
        )
        if overall["n_graded"] == 0:
            seen = ", ".join(f"{n} {name}" for name, n in outcomes.items()) or "no items"
            summary["note"] = f"{NO_GRADE_NOTE} ({seen})"
        for key, field in _BREAKDOWNS.items():
            labels = [str(s.meta[field]) for s, _ in graded]
            summary[key] = grouped_tables(grades, labels, rounds=rounds, seed=seed)
        if self.options.atomic_questions:
            summary["atomic"] = _atomic_summary(samples, by_id)
        summary["grader"] = self._grader_facts()
        summary["bootstrap"] = {"rounds": rounds, "seed": seed, "level": 0.95}
        return SimpleVQAReport(summary)

    def stand_ins(self) -> list[StandIn]:
        if self.options.grader == "offline_match":
            what = "the gold answer looked up in the response, not the paper's LLM grading"
            return [StandIn("grader", "offline_match", what)]
        return []

    def _grader_facts(self) -> dict[str, Any]:
        """How the grades were made, stored with the numbers (offline ones say they are not
        the paper's)."""
        if self.options.grader == "offline_match":
            return {"protocol": OFFLINE_PROTOCOL, "rule": "vlmscope.tracks.simplevqa.match_grader"}
        return {
            "protocol": "llm (the paper's grading with a judge)",
            "prompt": self.grader.name,
            "prompt_sha256": self.grader.sha256,
            "reply_format": self.grader.reply_format,
            "temperature": self.judge_settings.temperature,
        }


def _validated_options(raw: dict[str, Any]) -> SimpleVQAOptions:
    try:
        return SimpleVQAOptions.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            f"options.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()
        )
        raise ValueError(problems) from None


def _sample(row: SimpleVQARow, variant: str, question: str, answer: str) -> Sample:
    request = question_request(row.image, row.image_name, row.language, question)
    meta = {
        "data_id": row.data_id,
        "variant": variant,
        "language": row.language,
        "question": question,
        "answer": answer,
        "task_category": row.category.task_category,
        "subject_category": row.category.subject_category,
        "entity_class": row.category.entity_class,
    }
    sample_id = str(row.data_id) if variant == ORIGINAL else f"{row.data_id}:{variant}"
    return Sample(id=sample_id, request=request, meta=meta, reference=answer)


def _one_hot(grade: Grade) -> dict[str, float]:
    return {
        g.value: float(g is grade) for g in (Grade.CORRECT, Grade.INCORRECT, Grade.NOT_ATTEMPTED)
    }


def _grade(scored: Scored) -> Grade | None:
    """The grade of a scored sample; None when there is none (failed request or judge)."""
    return (
        Grade(scored.parsed)
        if scored.outcome in ("ok", "judge_unparseable") and scored.parsed
        else None
    )


def _atomic_summary(samples: Sequence[Sample], by_id: dict[str, Scored]) -> dict[str, Any]:
    grades: dict[tuple[int, str], Grade | None] = {}
    for sample in samples:
        scored = by_id.get(sample.id)
        grades[(sample.meta["data_id"], sample.meta["variant"])] = (
            _grade(scored) if scored else None
        )
    pairs: list[tuple[Grade, Grade]] = []
    unpaired = 0
    for data_id in dict.fromkeys(data_id for data_id, _ in grades):
        original, atomic = grades.get((data_id, ORIGINAL)), grades.get((data_id, ATOMIC))
        if original is None or atomic is None or Grade.UNPARSEABLE in (original, atomic):
            unpaired += 1
        else:
            pairs.append((original, atomic))
    return atomic_analysis(pairs, unpaired=unpaired)


def _count(items: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return dict(sorted(counts.items()))
