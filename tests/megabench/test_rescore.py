"""Re-scoring the golden pipeline example: raw responses -> data_with_scores -> task_results -> summary."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.megabench.golden_json import TASK_META, assert_json_close, load
from tests.megabench.pipeline import EXPECTED, INPUTS, assert_tasks_match, expected_task_results
from vlmscope.cli.megabench_rescore import add_score
from vlmscope.metrics.megabench.metric_types import UnknownMetricError
from vlmscope.tracks.megabench import rescore as rescore_module
from vlmscope.tracks.megabench.keywords import load_task_meta
from vlmscope.tracks.megabench.rescore import RescoreOutputs, rescore, score_responses


def _pipeline_inputs() -> tuple[Any, Any, Any]:
    return (
        load(INPUTS / "all_query_responses.json"),
        load(INPUTS / "task_samples.json"),
        load(INPUTS / "data_with_scores_open.json"),
    )


def assert_matches_pipeline_goldens(outputs: RescoreOutputs) -> None:
    """Every number of the three expected files, tasks compared by name."""
    expected = load(EXPECTED / "data_with_scores.json")
    assert_tasks_match(outputs.data_with_scores["data"], expected["data"])
    assert_json_close(outputs.data_with_scores["summary"], expected["summary"])
    task_results = sorted((r.to_json() for r in outputs.task_results), key=lambda r: r["name"])
    assert_json_close(task_results, expected_task_results())
    assert_json_close(
        outputs.summary_and_keyword_stats, load(EXPECTED / "summary_and_keyword_stats.json")
    )


def test_pipeline_example_end_to_end_with_the_official_query_scorer() -> None:
    """The whole chain, the real query scorer included."""
    responses, samples, open_scored = _pipeline_inputs()
    try:
        outputs = rescore(
            responses, samples, all_meta=load_task_meta(TASK_META), extra_scored=[open_scored]
        )
    except NotImplementedError:
        pytest.skip("vlmscope.metrics.megabench.query.score_query is not implemented yet")
    assert_matches_pipeline_goldens(outputs)


@dataclass(frozen=True)
class Replayed:
    field_scores: Mapping[str, float]
    query_score: float
    field_info: Mapping[str, Any] = field(default_factory=dict)
    field_outcomes: Mapping[str, str] = field(default_factory=dict)


class ReplayScorer:
    """Answers each query with the golden scores, recording what it was asked."""

    def __init__(self) -> None:
        golden = load(EXPECTED / "data_with_scores.json")
        self.scores = {
            (task["task_name"], query["response"]): query["scores"]
            for task in golden["data"]
            for query in task["query_response"]
        }
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Replayed:
        self.calls.append(kwargs)
        scores = self.scores[(kwargs["task_name"], kwargs["response"])]
        return Replayed(scores["field"], scores["query"], scores["info"])


def test_assembly_from_query_scores_reproduces_the_goldens() -> None:
    responses, samples, open_scored = _pipeline_inputs()
    scorer = ReplayScorer()
    outputs = rescore(
        responses,
        samples,
        all_meta=load_task_meta(TASK_META),
        extra_scored=[open_scored],
        scorer=scorer,
    )
    assert_matches_pipeline_goldens(outputs)
    assert outputs.problem_outcomes == {}
    tap = next(call for call in scorer.calls if call["task_name"] == "GUI_Act_Mobile_tap")
    assert tap["eval_context"] == {
        "bounding_boxes": ["(0.631, 0.762, 0.744, 0.819)", "(0.069, 0.865, 0.842, 0.915)"]
    }
    assert tap["metric_info"]["field_score_function"] == {"Position": "xml_norm_point_in_bbox"}
    assert tap["global_description"] == responses[6]["global_description"]
    assert tap["query_text"] == responses[6]["query_response"][0]["query_text"]


def test_judged_task_is_llm_and_problem_outcomes_are_counted() -> None:
    responses, samples, open_scored = _pipeline_inputs()
    task = open_scored["data"][0]
    judge_info = "{'field_score_function': {'reference': 'gpt_4o_as_judge'}, 'aggregation': {'function': 'mean', 'field_weights': {'reference': 1}}, 'response_parse_function': 'answer_string'}"
    task_samples = [
        {
            "task_name": task["task_name"],
            "task_samples": [{"metric_info": judge_info, "eval_context": "{}"}] * 3,
        }
    ]
    seen: list[Any] = []

    def scorer(**kwargs: Any) -> Replayed:
        seen.append(kwargs["judge_replies"])
        if kwargs["judge_replies"] is None:
            return Replayed({"reference": 0}, 0.0, {}, {"reference": "judge_missing"})
        return Replayed({"reference": 0.7}, 0.7, {}, {"reference": "scored"})

    replies = {(task["task_name"], 1): {"reference": "**Score**: 7"}}
    query_response = [{k: v for k, v in q.items() if k != "scores"} for q in task["query_response"]]
    bare_task = {
        k: v
        for k, v in task.items()
        if k in ("task_name", "global_description", "global_images", "example_info")
    }
    scored = score_responses(
        [{**bare_task, "query_response": query_response}],
        task_samples,
        scorer=scorer,
        judge_replies=replies,
    )
    assert seen == [None, {"reference": "**Score**: 7"}, None]
    assert scored.problem_outcomes == {"judge_missing": 2}
    data = scored.document["data"][0]
    assert data["eval_type"] == "llm"
    assert data["query_response"][0]["scores"]["outcomes"] == {"reference": "judge_missing"}
    assert "outcomes" not in data["query_response"][1]["scores"]
    assert data["mean_task_score"] == pytest.approx(0.7 / 3)
    assert scored.document["summary"]["num_tasks_evaluated"] == {"rule": 0, "llm": 1}


def test_responses_without_samples_are_rejected() -> None:
    responses, _, _ = _pipeline_inputs()
    with pytest.raises(ValueError, match="no samples"):
        score_responses(responses[:1], [], scorer=ReplayScorer())


def test_task_samples_with_an_unknown_metric_are_rejected_naming_the_task() -> None:
    responses, samples, _ = _pipeline_inputs()
    name = responses[0]["task_name"]
    bad = "{'field_score_function': {'x': 'no_such_metric'}, 'response_parse_function': 'json'}"
    task_samples = [
        {**task, "task_samples": [{**q, "metric_info": bad} for q in task["task_samples"]]}
        if task["task_name"] == name
        else task
        for task in samples
    ]
    with pytest.raises(UnknownMetricError, match=f"task '{name}'.*no_such_metric"):
        score_responses(responses[:1], task_samples, scorer=ReplayScorer())


def test_score_command_writes_the_three_official_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rescore_module, "default_query_scorer", ReplayScorer)
    parser = argparse.ArgumentParser()
    add_score(parser.add_subparsers())
    out = tmp_path / "out"
    args = parser.parse_args(
        [
            "score",
            str(INPUTS / "all_query_responses.json"),
            "--samples",
            str(INPUTS / "task_samples.json"),
            "--out",
            str(out),
            "--extra-scored",
            str(INPUTS / "data_with_scores_open.json"),
        ]
    )
    assert args.func(args) == 0
    written = RescoreOutputs(
        data_with_scores=load(out / "data_with_scores.json"),
        task_results=[
            rescore_module.TaskResult.from_json(entry) for entry in load(out / "task_results.json")
        ],
        summary_and_keyword_stats=load(out / "summary_and_keyword_stats.json"),
        problem_outcomes={},
    )
    assert_matches_pipeline_goldens(written)


def _task(name: str, metric: str, count: int) -> tuple[dict[str, Any], dict[str, Any]]:
    info = repr(
        {
            "field_score_function": {"Answer": metric},
            "aggregation": {"function": "mean", "field_weights": {"Answer": 1}},
            "response_parse_function": "answer_string",
        }
    )
    queries = [
        {"query_idx": i, "response": f"{name} {i}", "correct_answer": {}, "query_text": ""}
        for i in range(count)
    ]
    response = {
        "task_name": name,
        "global_description": "",
        "example_info": {"example_text": "", "image_paths": []},
        "query_response": queries,
    }
    samples = {
        "task_name": name,
        "task_samples": [{"metric_info": info, "eval_context": "{}"}] * count,
    }
    return response, samples


def test_program_tasks_are_scored_on_other_threads_and_the_document_keeps_the_file_order() -> None:
    import threading

    tasks = [
        _task("programs", "program_judge", 4),
        _task("rules", "exact_str_match", 3),
        _task("more_programs", "Program_Judge", 2),
    ]
    responses = [response for response, _ in tasks]
    samples = [sample for _, sample in tasks]
    threads: dict[str, set[str]] = {}

    def scorer(**kwargs: Any) -> Replayed:
        threads.setdefault(kwargs["task_name"], set()).add(threading.current_thread().name)
        score = float(kwargs["response"].split()[1])
        return Replayed({"Answer": score}, score)

    concurrent = score_responses(responses, samples, scorer=scorer, program_workers=2)
    assert threads["rules"] == {threading.main_thread().name}
    assert threading.main_thread().name not in threads["programs"] | threads["more_programs"]
    threads.clear()
    sequential = score_responses(responses, samples, scorer=scorer, program_workers=1)
    assert set().union(*threads.values()) == {threading.main_thread().name}
    assert concurrent.document == sequential.document
    assert [task["task_name"] for task in concurrent.document["data"]] == [
        "programs",
        "rules",
        "more_programs",
    ]
    assert [q["scores"]["query"] for q in concurrent.document["data"][0]["query_response"]] == [
        0.0,
        1.0,
        2.0,
        3.0,
    ]


def test_a_query_without_a_sample_is_rejected_before_anything_is_scored() -> None:
    (response, sample), (bad, bad_sample) = (
        _task("a", "program_judge", 2),
        _task("b", "exact_str_match", 1),
    )
    bad["query_response"][0]["query_idx"] = 5
    called: list[str] = []

    def scorer(**kwargs: Any) -> Replayed:
        called.append(kwargs["task_name"])
        return Replayed({"Answer": 1.0}, 1.0)

    with pytest.raises(ValueError, match="no sample for query_idx 5"):
        score_responses([response, bad], [sample, bad_sample], scorer=scorer)
    assert called == []
