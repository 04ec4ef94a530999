"""The whole-task evaluate module gives the same numbers as the track's own scoring path."""

from pathlib import Path

import evaluate
import pytest

from vlmscope.tracks.megabench.rows import group_by_task, read_rows
from vlmscope.tracks.shipped_samples import sample_dir

MODULE = str(Path(__file__).parents[2] / "evaluate_metrics" / "megabench_task")


def test_task_module_scores_a_sample_task():
    rows = group_by_task(read_rows(sample_dir("megabench"), "core"))["sample_json_fields"]
    task = evaluate.load(MODULE)
    result = task.compute(
        predictions=[
            "Answer: {'animal': 'dog', 'count': '2'}",
            "Answer: {'animal': 'bird', 'count': '4'}",
        ],
        references=[r.answer for r in rows],
        metric_info=rows[0].metric_info,
        query_text=[r.query_text for r in rows],
        task_name="sample_json_fields",
    )
    # second query: animal right (weight 1), count wrong (weight 3) -> 0.25
    assert result["query_scores"] == [1.0, 0.25]
    assert result["mean_task_score"] == 0.625 and result["task_score"] == 1.25
    assert result["field_scores"][1] == {"animal": 1.0, "count": 0.0}


def test_task_module_reports_judge_outcomes():
    rows = read_rows(sample_dir("megabench"), "open")
    task = evaluate.load(MODULE)
    result = task.compute(
        predictions=["A red circle.", "A square."],
        references=[r.answer for r in rows],
        metric_info=rows[0].metric_info,
        eval_context=[r.eval_context for r in rows],
        judge_replies=[{"Description": "**Score**: 8"}, {"Description": "no score given"}],
    )
    assert result["query_scores"] == [0.8, 0.0]
    assert result["outcomes"] == [{}, {"Description": "judge_unparseable"}]


INFO = {
    "field_score_function": {"Answer": "exact_str_match"},
    "aggregation": {"function": "mean", "field_weights": {"Answer": 1}},
    "response_parse_function": "answer_string",
}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"predictions": ["Answer: B", 5]}, r"predictions\[1\]: expected a string, got int 5"),
        ({"predictions": ["Answer: B", None]}, r"predictions\[1\]: expected a string"),
        ({"references": [{"Answer": "B"}, "B"]}, r"references\[1\]: .*not JSON"),
        ({"references": [{"Answer": "B"}, ["B"]]}, r"references\[1\]: expected a dict"),
        ({"references": [{"Answer": "B"}, None]}, r"references\[1\]: expected a dict"),
        ({"eval_context": [{}]}, "eval_context: 1 items, but there are 2 predictions"),
        ({"query_text": ["q"]}, "query_text: 1 items, but there are 2 predictions"),
        ({"judge_replies": [None]}, "judge_replies: 1 items, but there are 2 predictions"),
        ({"metric_info": {}}, "metric_info: expected the task's dict"),
        ({"metric_info": {**INFO, "field_score_function": {"Answer": "nope"}}}, "unknown"),
    ],
)
def test_bad_items_are_named_by_row_and_field(change, named):
    """Each of these once scored (a cast, a -1 query) or failed deep inside with a bare error."""
    good = {
        "predictions": ["Answer: B", "Answer: C"],
        "references": [{"Answer": "B"}, {"Answer": "A"}],
        "metric_info": INFO,
    }
    with pytest.raises(ValueError, match=named):
        evaluate.load(MODULE).compute(**{**good, **change})
