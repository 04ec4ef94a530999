"""The track's report against the golden pipeline example, in every prompt setting.

The golden raw responses become a MEGA-Bench data folder; the track scores them (real query
scorer, Open task through a judge replaying the golden verdicts), `summarize` builds the report
and `write_files` writes the official files, which must hold every counted task with the golden
numbers. The golden responses are fed as the CoT run, the no-CoT run, or one of the two with
empty answers in the other, so the Core tasks of the setting the summary chose are the ones
the files show (with `cot: without` they used to be empty).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.megabench.golden_json import TASK_META, assert_json_close, load
from tests.megabench.pipeline import EXPECTED, INPUTS, assert_tasks_match, expected_task_results
from vlmscope.cache import ResponseCache
from vlmscope.config import ImageBudget, OracleModelConfig, TrackConfig
from vlmscope.judges.client import Judge
from vlmscope.messages import GenerationParams, Response, user_request
from vlmscope.models.base import SyncBackend
from vlmscope.tracks.base import Sample, Scored, ScoringContext
from vlmscope.tracks.megabench import track as track_module
from vlmscope.tracks.megabench.aggregation import TaskResult
from vlmscope.tracks.megabench.intervals import (
    SINGLE_IMAGE_KEY,
    headline_intervals,
    subset_intervals,
)
from vlmscope.tracks.megabench.keywords import load_task_meta
from vlmscope.tracks.megabench.official_files import summary_and_keyword_stats
from vlmscope.tracks.megabench.prompt import BuiltPrompt
from vlmscope.tracks.megabench.report import MegaBenchReport
from vlmscope.tracks.megabench.rows import STRING_COLUMNS, QueryRow
from vlmscope.tracks.megabench.single_image import single_image_entries, single_image_subset
from vlmscope.tracks.megabench.track import MegaBenchTrack

OPEN_METRIC_INFO = {
    "field_score_function": {"reference": "gpt_4o_as_judge"},
    "aggregation": {"function": "mean", "field_weights": {"reference": 1}},
    "response_parse_function": "answer_string",
    "gpt4o_eval_configs": {
        "judge_model_type": "text only",
        "reference_type": "answer",
        "eval_criteria_prompt": "Question: {question}\nReference: {ref}\nResponse: {resp}",
        "template_mapping": {
            "question": "example_question",
            "ref": "answers.reference",
            "resp": "model_output",
        },
    },
}


def _rows_of(task: dict[str, Any], metric_infos: list[str], eval_contexts: list[str]) -> list[str]:
    """The upstream rows (one JSON line each, every column a string) of one golden task."""
    lines = []
    for query in task["query_response"]:
        idx = query["query_idx"]
        row = dict.fromkeys(STRING_COLUMNS, "")
        row.update(
            id=query["global_idx"],
            task_name=task["task_name"],
            task_description=task["global_description"],
            global_media=repr(task["global_images"]),
            example_text=task["example_info"]["example_text"],
            example_media=repr(task["example_info"]["image_paths"]),
            query_text=query["query_text"],
            query_media=repr(query["images"]),
            answer=repr(query["correct_answer"]),
            metric_info=metric_infos[idx],
            eval_context=eval_contexts[idx],
        )
        lines.append(json.dumps(row, ensure_ascii=False))
    return lines


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden tasks as a data folder: the 24 Core tasks and the one Open task."""
    folder = tmp_path_factory.mktemp("pipeline_data")
    samples = {t["task_name"]: t["task_samples"] for t in load(INPUTS / "task_samples.json")}
    core = []
    for task in load(INPUTS / "all_query_responses.json"):
        task_samples = samples[task["task_name"]]
        metric_infos = [s["metric_info"] for s in task_samples]
        core += _rows_of(task, metric_infos, [s["eval_context"] for s in task_samples])
    (folder / "core.jsonl").write_text("\n".join(core) + "\n", encoding="utf-8")
    (open_task,) = load(INPUTS / "data_with_scores_open.json")["data"]
    n = len(open_task["query_response"])
    lines = _rows_of(open_task, [repr(OPEN_METRIC_INFO)] * n, ["{}"] * n)
    (folder / "open.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def golden_responses() -> dict[tuple[str, int], str]:
    """(task, query_idx) -> the golden raw response, Core and Open."""
    core = load(INPUTS / "all_query_responses.json")
    open_tasks = load(INPUTS / "data_with_scores_open.json")["data"]
    return {
        (task["task_name"], query["query_idx"]): query["response"]
        for task in core + open_tasks
        for query in task["query_response"]
    }


class GoldenVerdicts(SyncBackend):
    """A judge replying to each Open answer with the verdict the golden file records for it."""

    name = "golden-verdicts"
    identity = {"backend": "golden-verdicts"}

    def __init__(self) -> None:
        super().__init__()
        (task,) = load(INPUTS / "data_with_scores_open.json")["data"]
        self.verdicts = {
            query["response"].removeprefix("Answer: "): "**Score explanation**: "
            + query["scores"]["info"]["reference"].split("Explanation: ", 1)[1]
            for query in task["query_response"]
        }

    def generate(self, requests, on_done=None):
        return [
            Response(next(v for a, v in self.verdicts.items() if r.turns[0].text.endswith(a)))
            for r in requests
        ]


def text_prompt(
    row: QueryRow,
    data_dir: Path,
    budget: ImageBudget,
    *,
    params: GenerationParams,
    cot: bool,
    video_sampling: str,
    first_row: QueryRow | None = None,
) -> BuiltPrompt:
    """The golden queries name images the golden does not ship: the model here answers from the
    golden file, so a text request stands in for the official prompt."""
    return BuiltPrompt(user_request(f"{row.query_text} cot={cot}", params=params), False, ())


def scored_run(
    data_dir: Path, cot: str, golden_setting: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[MegaBenchTrack, list[Sample], list[Scored]]:
    """The golden answers in the `golden_setting` run (True: CoT), empty answers in the other;
    Open answers always golden (Open runs with CoT only)."""
    monkeypatch.setattr(track_module, "build_prompt", text_prompt)
    track = MegaBenchTrack(
        TrackConfig(name="megabench", data_dir=str(data_dir), options={"cot": cot}), limit=None
    )
    samples = track.samples(OracleModelConfig(backend="oracle", name="golden"))
    answers = golden_responses()
    judge = Judge(GoldenVerdicts(), ResponseCache(":memory:"))

    def answer(sample: Sample) -> str:
        meta = sample.meta
        is_open = meta["task_name"] == "unusual_images"
        golden = is_open or meta["cot"] == golden_setting
        return answers[(meta["task_name"], meta["query_idx"])] if golden else ""

    async def score_all() -> list[Scored]:
        context = ScoringContext(model="golden", judge=judge)
        return [await track.score(s, Response(answer(s)), context) for s in samples]

    return track, samples, asyncio.run(score_all())


SETTINGS = {
    "with": ("with", True, "with_cot"),
    "without": ("without", False, "without_cot"),
    "both, CoT better": ("both", True, "with_cot"),
    "both, no CoT better": ("both", False, "without_cot"),
}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_official_files_hold_every_counted_task_with_the_golden_numbers(
    setting: str, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cot, golden_setting, chosen = SETTINGS[setting]
    track, samples, scored = scored_run(data_dir, cot, golden_setting, monkeypatch)
    report = track.summarize(samples, scored)
    assert isinstance(report, MegaBenchReport) and report.core_setting == chosen
    official = tmp_path / "official"
    with_open = cot != "without"  # Open is judged and runs with CoT only
    stale = official / "single_image"
    for name in ("task_results.json", "summary_and_keyword_stats.json"):
        stale.mkdir(parents=True, exist_ok=True)
        (stale / name).write_text("[]")  # an earlier run's, in the same folder
    report.write_files(tmp_path)

    assert_data_with_scores(load(official / "data_with_scores.json"), with_open=with_open)
    task_results = load(official / "task_results.json")
    expected_results = [r for r in expected_task_results() if with_open or r["eval_type"] == "rule"]
    assert_json_close(sorted(task_results, key=lambda r: r["name"]), expected_results)
    stats = load(official / "summary_and_keyword_stats.json")
    golden_stats = load(EXPECTED / "summary_and_keyword_stats.json")
    if with_open:
        assert_json_close(stats, golden_stats)
    else:  # Core only: the golden's Core block, and no overall without Open
        assert_json_close(stats["model_summary"]["core"], golden_stats["model_summary"]["core"])
        assert stats["model_summary"]["open"] is None
        assert stats["model_summary"]["overall_score"] is None
    assert_files_show_the_summary(official, report.summary(), task_results, with_open=with_open)

    summary = report.summary()
    golden_core = golden_stats["model_summary"]["core"]["macro_mean_score"]
    assert summary["core_setting"] == chosen
    assert summary[f"core_{chosen}"] == pytest.approx(golden_core, abs=1e-9)
    if cot == "both":
        other = "without_cot" if chosen == "with_cot" else "with_cot"
        assert summary[f"core_{other}"] < summary[f"core_{chosen}"]


def assert_data_with_scores(written: dict[str, Any], *, with_open: bool) -> None:
    """The golden Core tasks (then the golden Open task), and the evaluator summary's numbers
    per eval type; with Core only, the golden summary block itself."""
    golden_core = load(EXPECTED / "data_with_scores.json")
    golden_open = load(INPUTS / "data_with_scores_open.json")
    assert_tasks_match(
        written["data"], golden_core["data"] + (golden_open["data"] if with_open else [])
    )
    if not with_open:
        assert_json_close(written["summary"], golden_core["summary"])
        return
    for key in (
        "num_tasks_evaluated",
        "num_queries_evaluated",
        "num_samples_all",
        "macro_mean_score",
        "micro_mean_score",
    ):
        assert_json_close(written["summary"][key]["rule"], golden_core["summary"][key]["rule"])
        assert_json_close(written["summary"][key]["llm"], golden_open["summary"][key]["llm"])


def assert_files_show_the_summary(
    official: Path, summary: dict[str, Any], task_results: list[dict[str, Any]], *, with_open: bool
) -> None:
    """The summary holds the official files' numbers. Without Open tasks the official tool
    writes no single-image files (its subset needs a Core and an Open task), so none are
    written, and the summary has no single-image documents or overall either; the subset's
    intervals are still the bootstrap over its (Core) tasks."""
    stats = load(official / "summary_and_keyword_stats.json")
    assert stats == as_json(summary["summary_and_keyword_stats"])
    assert summary["overall"] == stats["model_summary"]["overall_score"]
    assert summary["core"] == stats["model_summary"]["core"]["macro_mean_score"]
    assert summary["open"] == (stats["model_summary"]["open"] or {}).get("macro_mean_score")
    if not with_open:
        assert not any((official / "single_image").iterdir())  # an earlier run's removed
        assert summary["single_image"] is None and summary["single_image_overall"] is None
        entries = load(official / "data_with_scores.json")["data"]
        meta = load_task_meta(TASK_META)
        recorded = dict(summary["intervals"])
        subset = recorded.pop(SINGLE_IMAGE_KEY)
        assert as_json(recorded) == as_json(headline_intervals(entries, meta))
        assert as_json(subset) == as_json(
            subset_intervals(single_image_entries(entries, meta), meta)
        )
        assert subset["overall"] is None and subset["core"] is not None
        return
    single = load(official / "single_image" / "summary_and_keyword_stats.json")
    assert single == as_json(summary["single_image"])
    assert summary["single_image_overall"] == single["model_summary"]["overall_score"]
    meta = load_task_meta(TASK_META)
    subset = single_image_subset([TaskResult.from_json(r) for r in task_results], meta)
    assert load(official / "single_image" / "task_results.json") == [r.to_json() for r in subset]
    assert single == as_json(summary_and_keyword_stats(subset, meta))
    assert_intervals_cover_both_sets(official, summary, single)


def assert_intervals_cover_both_sets(
    official: Path, summary: dict[str, Any], single: dict[str, Any]
) -> None:
    """The full benchmark's intervals are the bootstrap over the counted tasks, the single-image
    subset's the same bootstrap over its own tasks, one per keyword of its breakdown, each
    holding the subset's official keyword score."""
    meta = load_task_meta(TASK_META)
    entries = load(official / "data_with_scores.json")["data"]
    recorded = dict(summary["intervals"])
    subset = recorded.pop(SINGLE_IMAGE_KEY)
    assert as_json(recorded) == as_json(headline_intervals(entries, meta))
    assert as_json(subset) == as_json(subset_intervals(single_image_entries(entries, meta), meta))
    keywords = single["keyword_stats"]
    assert {d: set(k) for d, k in subset["keywords"].items()} == {
        d: set(k) for d, k in keywords.items()
    }
    for dimension, stats in keywords.items():
        for keyword, stat in stats.items():
            lower, upper = subset["keywords"][dimension][keyword]
            assert lower - 1e-12 <= stat["average_score"] <= upper + 1e-12, (dimension, keyword)


def as_json(document: Any) -> Any:
    return json.loads(json.dumps(document))
