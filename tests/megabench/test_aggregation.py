"""MEGA-Bench aggregation against the official goldens (per-task results -> summary, keywords, SI)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.megabench.golden_json import (
    AGGREGATION,
    TASK_META,
    assert_json_close,
    load,
    read_task_results,
)
from vlmscope.cli.megabench_rescore import add_summarize
from vlmscope.tracks.megabench.aggregation import (
    EvaluatedTask,
    SetSummary,
    TaskResult,
    evaluator_summary,
    merge_task_results,
    model_summary,
    overall_with_best_core,
    score_task,
)
from vlmscope.tracks.megabench.keywords import join_task_meta, keyword_stats, load_task_meta
from vlmscope.tracks.megabench.official_files import (
    merge_scored_files,
    num_demo_of,
    summary_and_keyword_stats,
)
from vlmscope.tracks.megabench.single_image import single_image_entries, single_image_subset

GEMINI = AGGREGATION / "Gemini-2.0-1206"
PIPELINE = AGGREGATION / "pipeline_example"


@pytest.fixture(scope="module")
def all_meta() -> dict[str, dict[str, Any]]:
    return load_task_meta(TASK_META)


def as_json(document: Any) -> Any:
    """What a reader of our written file sees (tuples become lists)."""
    return json.loads(json.dumps(document))


def test_packaged_task_meta_is_the_official_file() -> None:
    packaged = load_task_meta()
    assert len(packaged) == 505
    assert packaged == load(TASK_META)


def key_orders(document: Any, where: str = "$") -> list[tuple[str, list[str]]]:
    """Every object's keys in order: keyword order is the order in which tasks first show them."""
    if isinstance(document, dict):
        found = [(where, list(document))]
        for key, value in document.items():
            found += key_orders(value, f"{where}.{key}")
        return found
    if isinstance(document, list):
        return [found for i, v in enumerate(document) for found in key_orders(v, f"{where}[{i}]")]
    return []


def assert_summary_reproduced(
    results: list[TaskResult], expected: Any, all_meta: dict[str, Any]
) -> dict[str, Any]:
    """Our `summary_and_keyword_stats.json` for these task results equals the official one: numbers
    within the tolerance, names, counts and key orders exactly."""
    ours: dict[str, Any] = as_json(summary_and_keyword_stats(results, all_meta))
    assert_json_close(ours, expected)
    assert key_orders(ours) == key_orders(expected)
    return ours


def assert_single_image_reproduced(
    results: list[TaskResult],
    expected_rows: Any,
    expected_summary: Any,
    all_meta: dict[str, Any],
) -> None:
    """Our single-image `task_results.json` equals the official rows exactly, and its summary too."""
    subset = single_image_subset(results, all_meta)
    assert_json_close([r.to_json() for r in subset], expected_rows)
    assert [r.name for r in subset] == [row["name"] for row in expected_rows]
    assert_summary_reproduced(subset, expected_summary, all_meta)


def test_full_results_summary_and_keyword_stats(all_meta: dict[str, Any]) -> None:
    results = read_task_results(GEMINI / "task_results.json")
    expected = load(GEMINI / "expected_summary_and_keyword_stats.json")
    ours = assert_summary_reproduced(results, expected, all_meta)
    assert ours["model_summary"]["overall_score"] == pytest.approx(0.5807732780066456, abs=1e-12)


def test_single_image_subset(all_meta: dict[str, Any]) -> None:
    results = read_task_results(GEMINI / "task_results.json")
    subset = single_image_subset(results, all_meta)
    expected_dir = GEMINI / "expected_single_image"
    assert [r.to_json() for r in subset] == load(expected_dir / "task_results.json")
    assert_single_image_reproduced(
        results,
        load(expected_dir / "task_results.json"),
        load(expected_dir / "summary_and_keyword_stats.json"),
        all_meta,
    )


def test_pipeline_summary_from_its_task_results(all_meta: dict[str, Any]) -> None:
    results = read_task_results(PIPELINE / "expected" / "task_results.json")
    expected = load(PIPELINE / "expected" / "summary_and_keyword_stats.json")
    assert_json_close(as_json(summary_and_keyword_stats(results, all_meta)), expected)


def test_task_results_merged_from_scored_files() -> None:
    documents = [
        load(PIPELINE / "expected" / "data_with_scores.json"),
        load(PIPELINE / "inputs" / "data_with_scores_open.json"),
    ]
    merged = sorted((r.to_json() for r in merge_scored_files(documents)), key=lambda r: r["name"])
    assert_json_close(merged, load(PIPELINE / "expected" / "task_results.json"))


@pytest.mark.parametrize(
    "path",
    [
        PIPELINE / "expected" / "data_with_scores.json",
        PIPELINE / "inputs" / "data_with_scores_open.json",
    ],
    ids=["rule", "open"],
)
def test_query_to_task_and_evaluator_summary(path: Path) -> None:
    document = load(path)
    evaluated = []
    for task in document["data"]:
        score = score_task(query["scores"]["query"] for query in task["query_response"])
        assert score.task_score == pytest.approx(task["task_score"], abs=1e-9), task["task_name"]
        assert score.mean_task_score == pytest.approx(task["mean_task_score"], abs=1e-9)
        evaluated.append(
            EvaluatedTask(task["eval_type"], num_demo_of(task), len(task["query_response"]), score)
        )
    assert_json_close(evaluator_summary(evaluated), document["summary"])


def test_negative_and_nan_query_scores_count_in_the_denominator() -> None:
    score = score_task([1.0, -1, 0.5, math.nan])
    assert score.task_score == 1.5
    assert score.mean_task_score == 1.5 / 4
    assert score_task([]).mean_task_score == 0
    assert score_task([-1, -1]).mean_task_score == 0


def _result(name: str, score: float, eval_type: str = "rule", num_query: int = 10) -> TaskResult:
    return TaskResult(name=name, score=score, eval_type=eval_type, num_demo=1, num_query=num_query)


def test_overall_is_the_mean_over_all_tasks_not_of_the_two_sets() -> None:
    results = [_result("a", 1.0), _result("b", 1.0), _result("c", 1.0), _result("d", 0.0, "llm")]
    summary = model_summary(results, known_tasks={"a", "b", "c", "d"})
    assert summary.core == SetSummary(3, 30, 1.0)
    assert summary.open == SetSummary(1, 10, 0.0)
    assert summary.overall_score == pytest.approx(0.75)  # the mean of the set scores would be 0.5


def test_unknown_tasks_are_left_out_and_an_empty_set_gives_no_overall() -> None:
    summary = model_summary([_result("a", 0.4), _result("zz", 0.0)], known_tasks={"a"})
    assert summary.core == SetSummary(1, 10, 0.4)
    assert summary.open is None and summary.overall_score is None


def test_merge_prefers_llm_entries_and_keeps_first_position() -> None:
    first = [_result("a", 0.1), _result("b", 0.2)]
    second = [_result("a", 0.9, "llm"), _result("b", 0.8), _result("c", 0.3)]
    merged = merge_task_results([first, second])
    assert [(r.name, r.score, r.eval_type) for r in merged] == [
        ("a", 0.9, "llm"),
        ("b", 0.2, "rule"),
        ("c", 0.3, "rule"),
    ]


def test_keyword_stats_skip_minus_one_and_count_demos(all_meta: dict[str, Any]) -> None:
    skipped = TaskResult("vln_identify_robot", -1, "rule", 1, 15)
    counted = TaskResult("ascii_art_30", 0.5, "llm", 1, 14)
    stats = keyword_stats(join_task_meta([skipped, counted], all_meta))
    meta = all_meta["ascii_art_30"]
    assert sum(stat["count"] for stat in stats["app"].values()) == 1
    assert stats["app"][meta["app"]] == {
        "count": 1,
        "num_samples": 15,
        "tasks": [],
        "average_score": 0.5,
    }
    assert set(stats["skills"]) == set(meta["skills"])
    assert set(stats["input_num"]) == {meta["num_input"]}


# Table 2 of the paper: (Core w/o CoT, Core w/ CoT, Open, Overall), in percent, rounded.
TABLE_2 = {
    "Claude-3.5-Sonnet (1022)": (49.20, 52.59, 65.63, 54.27),
    "GPT-4o (0513)": (52.03, 52.65, 64.78, 54.21),
    "Qwen2-VL-72B": (46.41, 45.42, 56.40, 47.70),
    "LLaVA-OneVision-72B": (31.99, 29.74, 45.99, 33.79),
    "Qwen2-VL-7B": (34.80, 32.93, 43.96, 35.98),
    "Qwen2-VL-2B": (16.45, 20.88, 31.54, 22.25),
    "Llama-3.2-11B": (10.04, 16.00, 31.73, 18.02),
    "Idefics3-8B-Llama3": (11.12, 8.96, 32.11, 13.82),
}


@pytest.mark.parametrize("model", sorted(TABLE_2))
def test_overall_uses_the_better_core_score_as_table_2(model: str) -> None:
    without_cot, with_cot, open_score, overall = TABLE_2[model]
    choice = overall_with_best_core(
        SetSummary(440, 6531, without_cot),
        SetSummary(440, 6531, with_cot),
        SetSummary(65, 1158, open_score),
    )
    assert choice.chosen == ("with_cot" if with_cot >= without_cot else "without_cot")
    assert choice.overall_score == pytest.approx(overall, abs=0.006)  # inputs are rounded


def test_summarize_command_writes_the_official_files(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_summarize(parser.add_subparsers())
    without_cot = tmp_path / "without_cot.json"
    rows = load(GEMINI / "task_results.json")
    without_cot.write_text(json.dumps([{**row, "score": row["score"] / 2} for row in rows]))
    args = parser.parse_args(
        [
            "summarize",
            str(GEMINI / "task_results.json"),
            "--out",
            str(tmp_path / "out"),
            "--task-meta",
            str(TASK_META),
            "--core-without-cot",
            str(without_cot),
        ]
    )
    assert args.func(args) == 0
    out = tmp_path / "out"
    assert_json_close(
        load(out / "summary_and_keyword_stats.json"),
        load(GEMINI / "expected_summary_and_keyword_stats.json"),
    )
    expected_si = GEMINI / "expected_single_image"
    assert load(out / "single_image" / "task_results.json") == load(
        expected_si / "task_results.json"
    )
    assert_json_close(
        load(out / "single_image" / "summary_and_keyword_stats.json"),
        load(expected_si / "summary_and_keyword_stats.json"),
    )
    choice = load(out / "cot_choice.json")
    assert choice["chosen"] == "with_cot"
    assert choice["overall_score"] == pytest.approx(0.5807732780066456, abs=1e-12)


def test_summarize_accepts_a_core_only_scored_file(
    tmp_path: Path, all_meta: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Core alone: the full summary is written, and no single-image files, as the official
    `get_si_subset_from_full` writes none without an Open task; the command says so."""
    parser = argparse.ArgumentParser()
    add_summarize(parser.add_subparsers())
    scored = PIPELINE / "expected" / "data_with_scores.json"
    args = parser.parse_args(["summarize", str(scored), "--out", str(tmp_path)])
    assert args.func(args) == 0
    summary = load(tmp_path / "summary_and_keyword_stats.json")["model_summary"]
    assert summary["open"] is None and summary["overall_score"] is None
    assert summary["core"]["num_eval_tasks"] == 24
    assert summary["core"]["macro_mean_score"] == pytest.approx(0.5661458333333333, abs=1e-12)
    assert single_image_entries(load(scored)["data"], all_meta)  # Core has SI tasks
    assert not (tmp_path / "single_image").exists()
    assert "no single-image files" in capsys.readouterr().out
