"""MEGA-Bench (paper: "MEGA-Bench: Scaling Multimodal Evaluation to over 500 Real-World Tasks").

Data: the upstream `TIGER-Lab/MEGA-Bench` layout (`core` + `open`, or their `*_single_image`
configs), default the shipped sample. A row becomes one request built as the official query side
does (`prompt.py`); a response is parsed and scored field by field with the official metrics
(`vlmscope.metrics.megabench`), judged fields through the judge client; queries, tasks, Core,
Open, overall and the keyword breakdown aggregate exactly as the official tools do
(`aggregation.py`, `keywords.py`) into a `MegaBenchReport` (`report.py`), which also writes the
official result files beside ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from vlmscope.config import ModelConfig, TrackConfig
from vlmscope.dependencies import Dependency
from vlmscope.judges.client import Judge, reasoning_record
from vlmscope.judges.panel_codecs import JudgeScores
from vlmscope.judges.request import judge_request
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import GenerationParams, ImagePart, Part, Request, Response, TextPart
from vlmscope.metrics.megabench.lexicon import wordnet_dependency
from vlmscope.metrics.megabench.metric_types import eval_type_of
from vlmscope.metrics.megabench.query import build_judge_requests, score_query
from vlmscope.sandbox.requirements import sandbox_dependency
from vlmscope.tracks.base import Sample, Scored, ScoringContext, TrackBase, TrackOptions
from vlmscope.tracks.megabench import results as megabench_results
from vlmscope.tracks.megabench.keywords import task_meta_for
from vlmscope.tracks.megabench.oracle import oracle_answer
from vlmscope.tracks.megabench.prompt import SKIP_TEXT, build_prompt
from vlmscope.tracks.megabench.report import MegaBenchReport, build_report
from vlmscope.tracks.megabench.rows import QueryRow, group_by_task, read_rows
from vlmscope.tracks.megabench.video import VideoSampling, check_videos
from vlmscope.tracks.shipped_samples import sample_dir

SUBSETS = {
    "full": ("core", "open"),
    "single_image": ("core_single_image", "open_single_image"),
    "core": ("core",),
    "open": ("open",),
}


class MegaBenchOptions(TrackOptions):
    cot: Literal["with", "without", "both"] = "with"
    """Table 2 of the paper: Core with CoT (the dataset's demo text), without, or both (keep the better)."""
    max_new_tokens: int = 4096
    judge_with_images: bool = True
    """Attach the query images to judge requests when the task's judge config asks ("with image")."""
    video_sampling: VideoSampling = "fps"
    """The official frame sampling mode: "fps" (the released runs') or "max"."""


class MegaBenchTrack(TrackBase):
    name: ClassVar[str] = "megabench"
    judge_settings: ClassVar[JudgeSettings] = JudgeSettings(max_new_tokens=1024)
    """The official judged metrics ask their judge (GPT-4o, greedy) for at most 1024 new tokens."""
    panel_verdicts = JudgeScores()

    def __init__(self, config: TrackConfig, *, limit: int | None) -> None:
        self.options = MegaBenchOptions.model_validate(config.options)
        self.data_dir = Path(config.data_dir) if config.data_dir else sample_dir("megabench")
        subset = config.subset or "full"
        if subset not in SUBSETS:
            raise ValueError(f"subset: {subset!r} is not one of {', '.join(SUBSETS)}")
        self.task_meta = task_meta_for(self.data_dir)
        self.rows: list[QueryRow] = read_rows(
            self.data_dir, *SUBSETS[subset], task_meta=self.task_meta
        )
        if limit:
            self.rows = limit_per_task(self.rows, limit)
        self.tasks = group_by_task(self.rows)
        check_videos(self.rows, self.data_dir)

    def samples(self, model: ModelConfig) -> list[Sample]:
        budget = model.image_budget
        variants = {"with": (True,), "without": (False,), "both": (True, False)}[self.options.cot]
        params = GenerationParams(max_new_tokens=self.options.max_new_tokens)
        samples = []
        for task_name, rows in self.tasks.items():
            for query_idx, row in enumerate(rows):
                for cot in variants:
                    if not cot and eval_type_of(row.metric_info) == "llm":
                        continue  # the no-CoT setting is a Core setting (paper Table 2)
                    built = build_prompt(
                        row,
                        self.data_dir,
                        budget,
                        params=params,
                        cot=cot,
                        video_sampling=self.options.video_sampling,
                        first_row=rows[0],
                    )
                    suffix = "" if cot else ":no_cot"
                    samples.append(
                        Sample(
                            id=f"{task_name}/{query_idx}{suffix}",
                            request=built.request,
                            meta={
                                "task_name": task_name,
                                "query_idx": query_idx,
                                "row_id": row.id,
                                "cot": cot,
                                "over_budget": built.over_budget,
                                "prompt_notes": list(built.notes),
                            },
                            reference=oracle_answer(row.answer, row.metric_info),
                        )
                    )
        return samples

    async def score(self, sample: Sample, response: Response, context: ScoringContext) -> Scored:
        row = self._row(sample)
        text = SKIP_TEXT if sample.meta["over_budget"] else response.text
        judged = await self._judge(row, sample.request, text, context.judge)
        judge_replies, judge_problems, judge_reasoning = judged
        result = score_query(
            task_name=row.task_name,
            metric_info=row.metric_info,
            eval_context=row.eval_context,
            correct_answer=row.answer,
            response=text,
            query_text=row.query_text,
            global_description=row.task_description,
            judge_replies=judge_replies,
        )
        field_scores = dict(result.field_scores)
        query_score = result.query_score
        if megabench_results.is_reference_answer(sample, response):
            field_scores, query_score = megabench_results.sanity_check_scores(row, result)
        outcomes = {f: o for f, o in result.field_outcomes.items() if o != "scored"}
        outcome = "ok"
        if not response.ok and not sample.meta["over_budget"]:
            outcome = response.status.value
        elif sample.meta["over_budget"]:
            outcome = "over_image_budget"
        elif outcomes:
            outcome = sorted(set(outcomes.values()))[0]
        return Scored(
            sample_id=sample.id,
            scores={
                "query_score": query_score,
                **{f"field:{k}": v for k, v in field_scores.items()},
            },
            parsed=megabench_results.parsed_text(result.parsed_answer),
            outcome=outcome,
            extra={
                "field_outcomes": outcomes,
                "field_errors": dict(result.field_errors),
                "field_info": {
                    k: megabench_results.json_value(v) for k, v in result.field_info.items()
                },
                "judge_replies": dict(judge_replies or {}),
                "judge_problems": judge_problems,
                **({"judge_reasoning": judge_reasoning} if judge_reasoning else {}),
                "eval_type": result.eval_type,
                "prompt_notes": sample.meta["prompt_notes"],
                "reference": {k: str(v) for k, v in row.answer.items()},
                "response": text,
            },
        )

    def dependencies(self) -> list[Dependency]:
        """WordNet's noun files, when a configured task scores with `constrained_generation`;
        the sandbox's kernel layers, when one runs model-written code (`program_judge`)."""
        uses = {
            name
            for row in self.rows
            for name in row.metric_info.get("field_score_function", {}).values()
        }
        needed = []
        if "constrained_generation" in uses:
            needed.append(wordnet_dependency())
        if "program_judge" in uses:
            needed.append(sandbox_dependency())
        return needed

    def summarize(self, samples: Sequence[Sample], scored: Sequence[Scored]) -> MegaBenchReport:
        return build_report(self.rows, samples, scored, self.task_meta)

    def _row(self, sample: Sample) -> QueryRow:
        return self.tasks[sample.meta["task_name"]][sample.meta["query_idx"]]

    async def _judge(
        self, row: QueryRow, request: Request, text: str, judge: Judge | None
    ) -> tuple[dict[str, str] | None, dict[str, str], dict[str, dict[str, Any]]]:
        """Each judged field's reply, each field the judge could not answer and why, and the
        judge's reasoning per field (when it reasoned)."""
        images = request.images if self.options.judge_with_images else []
        contents = build_judge_requests(
            metric_info=row.metric_info,
            eval_context=row.eval_context,
            correct_answer=row.answer,
            response=text,
            query_text=row.query_text,
            image_contents=tuple({"type": "image", "index": i} for i in range(len(images))),
        )
        if not contents:
            return None, {}, {}
        if judge is None:
            return {}, dict.fromkeys(contents, "no judge configured"), {}
        replies: dict[str, str] = {}
        problems: dict[str, str] = {}
        reasoning: dict[str, dict[str, Any]] = {}
        for field_name, content in contents.items():
            parts: list[Part] = [
                ImagePart(images[item["index"]].data)
                if item["type"] == "image"
                else TextPart(item["text"])
                for item in content
            ]
            judged = await judge.ask(judge_request(self.judge_settings, parts))
            if judged.ok:
                replies[field_name] = judged.text
            else:
                problems[field_name] = judged.error or judged.status.value
            if trace := reasoning_record([judged]):
                reasoning[field_name] = trace
        return replies, problems, reasoning


def limit_per_task(rows: list[QueryRow], limit: int) -> list[QueryRow]:
    """`--limit N` keeps the first N queries of every task, so every task is still scored."""
    return [r for task_rows in group_by_task(rows).values() for r in task_rows[:limit]]
