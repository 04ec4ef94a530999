"""One model's MEGA-Bench result: the numbers of the summary and the official files, built once.

Which tasks count (paper Table 2): the Core tasks of the better prompt setting (with or without
the chain-of-thought text; a tie keeps CoT) and the Open tasks, which are judged and only run with
CoT. With `cot: without` there are no Open tasks, so Core alone. The summary and the official
files (`data_with_scores.json`, `task_results.json`, `summary_and_keyword_stats.json` and the
single-image subset) show exactly these tasks: both are rendered from the documents built here.
Every row built into a counted sample is in them: `n_rows` is that count, and the summary's Core
and Open sample counts add up to it (a report that would lose a row is not built). The summary
also holds each headline's and keyword's 95% interval (`intervals.py`), the single-image
subset's under `intervals.single_image`. Where the official tool writes no single-image files
(the subset's Core or Open set is empty: `single_image.official_single_image_subset`), there are
none, and the summary's single-image documents and overall are absent (`None`) too; its
`intervals.single_image` stays, the bootstrap over whatever single-image tasks there are (what
`vlmscope compare` pairs a run's subset by).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vlmscope.metrics.megabench.metric_types import eval_type_of
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.megabench.aggregation import TaskResult, prefer_cot
from vlmscope.tracks.megabench.intervals import (
    SINGLE_IMAGE_KEY,
    headline_intervals,
    subset_intervals,
)
from vlmscope.tracks.megabench.keywords import TaskMeta
from vlmscope.tracks.megabench.official_files import (
    DATA_WITH_SCORES,
    SINGLE_IMAGE_DIR,
    SUMMARY_AND_KEYWORD_STATS,
    TASK_RESULTS,
    summary_and_keyword_stats,
    task_results_from_scored,
    write_data_with_scores,
    write_json,
    write_task_results,
)
from vlmscope.tracks.megabench.results import data_with_scores, scored_task_entries
from vlmscope.tracks.megabench.rows import QueryRow
from vlmscope.tracks.megabench.single_image import (
    official_single_image_subset,
    single_image_entries,
)

CotSetting = Literal["with_cot", "without_cot"]
OFFICIAL_DIR = "official"
"""The official files go in their own folder beside the result datasets."""


@dataclass(frozen=True)
class MegaBenchReport:
    """The numbers and official documents of one model's run, each computed once."""

    core_setting: CotSetting
    """Whose Core tasks count: the setting with the better Core score."""
    core_scores: Mapping[CotSetting, float | None]
    """Core macro mean of each prompt setting that ran (CoT first)."""
    data_with_scores: Mapping[str, Any]
    """The official `data_with_scores.json` of the counted tasks (Core first, then Open)."""
    task_results: tuple[TaskResult, ...]
    """The counted tasks' entries of `task_results.json`, in the same order."""
    summary_and_keyword_stats: Mapping[str, Any]
    """Core / Open / overall and the keyword breakdown of `task_results`."""
    single_image_task_results: tuple[TaskResult, ...] | None
    single_image_summary: Mapping[str, Any] | None
    """The same two documents for the single-image subset of `task_results`; None where the
    official tool writes none (an empty Core or Open set of the subset)."""
    outcomes: Mapping[str, int]
    """How often a field was not scored normally (metric error, judge missing, ...)."""
    n_rows: int
    """Rows built into the counted samples (Core of the chosen setting, and Open)."""
    intervals: Mapping[str, Any] = field(default_factory=dict)
    """95% intervals of the headline and keyword numbers and how they were made
    (`intervals.headline_intervals`); under `single_image`, the subset's own
    (`intervals.subset_intervals`)."""

    def summary(self) -> dict[str, Any]:
        """Headline numbers first (overall, Core, Open), then the official summary documents."""
        model = self.summary_and_keyword_stats["model_summary"]
        summary: dict[str, Any] = {
            "overall": model["overall_score"],
            "core": (model["core"] or {}).get("macro_mean_score"),
            "open": (model["open"] or {}).get("macro_mean_score"),
        }
        summary.update({f"core_{setting}": score for setting, score in self.core_scores.items()})
        summary["core_setting"] = self.core_setting
        single = self.single_image_summary
        summary["single_image_overall"] = (
            single["model_summary"]["overall_score"] if single else None
        )
        summary["outcomes"] = dict(self.outcomes)
        summary["n_rows"] = self.n_rows
        summary["intervals"] = dict(self.intervals)
        summary["summary_and_keyword_stats"] = self.summary_and_keyword_stats
        summary["single_image"] = self.single_image_summary
        return summary

    def write_files(self, out_dir: Path) -> None:
        """The official files under `official/`, with the official names and shapes, so the
        official breakdown tools read them and a run compares file by file with a published one."""
        official = Path(out_dir) / OFFICIAL_DIR
        write_data_with_scores(official / DATA_WITH_SCORES, self.data_with_scores)
        write_task_results(official / TASK_RESULTS, self.task_results)
        write_json(official / SUMMARY_AND_KEYWORD_STATS, self.summary_and_keyword_stats)
        single = official / SINGLE_IMAGE_DIR
        if self.single_image_task_results is None or self.single_image_summary is None:
            for name in (TASK_RESULTS, SUMMARY_AND_KEYWORD_STATS):
                (single / name).unlink(missing_ok=True)  # none of an earlier run's stays
            return
        write_task_results(single / TASK_RESULTS, self.single_image_task_results)
        write_json(single / SUMMARY_AND_KEYWORD_STATS, self.single_image_summary)


def build_report(
    rows: Sequence[QueryRow],
    samples: Sequence[Sample],
    scored: Sequence[Scored],
    meta: Mapping[str, TaskMeta],
) -> MegaBenchReport:
    """Arrange the scored samples by prompt setting, choose the Core setting, and build the
    official documents of the counted tasks."""
    settings = sorted({bool(s.meta["cot"]) for s in samples}, reverse=True)
    entries = {cot: scored_task_entries(rows, samples, scored, cot=cot) for cot in settings}
    core = {cot: [t for t in tasks if t["eval_type"] != "llm"] for cot, tasks in entries.items()}
    open_tasks = [t for t in entries.get(True, []) if t["eval_type"] == "llm"]
    core_results = {cot: _task_results(tasks) for cot, tasks in core.items()}
    core_scores = {cot: _mean([r.score for r in results]) for cot, results in core_results.items()}
    use_cot = prefer_cot(core_scores.get(True), core_scores.get(False))
    results = (*core_results[use_cot], *_task_results(open_tasks))
    single = official_single_image_subset(results, meta)
    stats = summary_and_keyword_stats(results, meta)
    counted = core[use_cot] + open_tasks
    intervals = headline_intervals(counted, meta)
    intervals[SINGLE_IMAGE_KEY] = subset_intervals(single_image_entries(counted, meta), meta)
    n_rows = _check_totals(rows, samples, use_cot, stats["model_summary"])
    return MegaBenchReport(
        core_setting=_setting(use_cot),
        core_scores={_setting(cot): score for cot, score in core_scores.items()},
        data_with_scores=data_with_scores(counted),
        task_results=results,
        summary_and_keyword_stats=stats,
        single_image_task_results=None if single is None else tuple(single),
        single_image_summary=None if single is None else summary_and_keyword_stats(single, meta),
        outcomes=_outcome_counts(scored),
        n_rows=n_rows,
        intervals=intervals,
    )


def _check_totals(
    rows: Sequence[QueryRow],
    samples: Sequence[Sample],
    use_cot: bool,
    model_summary: Mapping[str, Any],
) -> int:
    """The number of rows built into counted samples, once the summary is known to count each
    of them (a task missing from the metadata, or a query without a result, would not be)."""
    ran = {(s.meta["task_name"], bool(s.meta["cot"])) for s in samples}
    counted = [
        row
        for row in rows
        if (row.task_name, use_cot if eval_type_of(row.metric_info) != "llm" else True) in ran
    ]
    summarised = sum((model_summary[k] or {}).get("num_eval_samples", 0) for k in ("core", "open"))
    if summarised != len(counted):
        raise ValueError(
            f"MEGA-Bench summary counts {summarised} queries for the {len(counted)} rows built"
        )
    return len(counted)


def _setting(cot: bool) -> CotSetting:
    return "with_cot" if cot else "without_cot"


def _task_results(tasks: Sequence[Mapping[str, Any]]) -> list[TaskResult]:
    """Task results read from entries as the official `merge_json_files` reads a scored file."""
    return task_results_from_scored({"data": tasks})


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _outcome_counts(scored: Sequence[Scored]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for s in scored:
        for outcome in s.extra.get("field_outcomes", {}).values():
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts
