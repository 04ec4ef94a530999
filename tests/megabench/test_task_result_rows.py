"""`vlmscope megabench summarize` on task results it cannot read: one `error:` line naming the
file, the row and the key (the official readers stop on a `KeyError`), exit status 2; a row
the official code reads with a default (no `score`) is still summarised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vlmscope.cli import main

GOOD = {"name": "ascii_art_30", "score": 0.5, "eval_type": "llm", "num_demo": 1, "num_query": 3}
SCORED = {"task_name": "t", "mean_task_score": 1, "eval_type": "rule", "query_response": []}


def _summarize(
    tmp_path: Path, document: Any, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    file = tmp_path / "task_results.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    code = main(["megabench", "summarize", str(file), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.replace(str(file), "FILE")


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ([GOOD, {"score": 0.1, "eval_type": "llm"}], "FILE row 1: field 'name': absent; "),
        ([GOOD, {**GOOD, "name": "b"}, "x"], "FILE row 2: expected an object with name, "),
        ([{k: v for k, v in GOOD.items() if k != "eval_type"}], "FILE row 0: field 'eval_type'"),
        ([{**GOOD, "num_query": "ten"}], "FILE: task result 'ascii_art_30': num_query is 'ten'"),
        ({"tasks": []}, "FILE: expected a task_results.json list of task results, or a "),
        (
            {"data": [{"task_name": "t", "mean_task_score": 1, "eval_type": "rule"}]},
            "FILE data[0]: field 'query_response': absent",
        ),
        (
            {"data": [{**SCORED, "example_info": {"example_text": ""}}]},
            "FILE data[0].example_info: field 'image_paths': absent; the demonstration count",
        ),
        (
            {"data": [{**SCORED, "example_info": []}]},
            "FILE data[0]: field 'example_info': expected an object",
        ),
    ],
)
def test_a_bad_row_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: Any, said: str
) -> None:
    code, err = _summarize(tmp_path, document, capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert said in err, err


def test_what_the_official_code_defaults_is_summarised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_score = {k: v for k, v in GOOD.items() if k != "score"}
    unscored = {"task_name": "t", "mean_task_score": -1}  # left out, as the official refinement
    assert _summarize(tmp_path, [no_score], capsys)[0] == 0
    assert (tmp_path / "out" / "summary_and_keyword_stats.json").is_file()
    assert _summarize(tmp_path, {"data": [unscored]}, capsys)[0] == 0


TASK = {
    "task_name": "t",
    "global_description": "",
    "example_info": {},
    "query_response": [{"query_idx": 0, "query_text": "q", "correct_answer": {}, "response": ""}],
}


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ([TASK, "junk"], "FILE row 1: expected a task object, got 'junk'"),
        (
            [{k: v for k, v in TASK.items() if k != "query_response"}],
            "FILE row 0 (task 't'): field 'query_response': absent; each task needs ",
        ),
        (
            [{**TASK, "query_response": [{"query_idx": 0}]}],
            "FILE row 0 (task 't'), query_response[0]: field 'query_text': absent",
        ),
        (
            [{**TASK, "query_response": [{**TASK["query_response"][0], "query_idx": "x"}]}],
            "query_response[0]: field 'query_idx': expected a whole number, got 'x'",
        ),
        ({"data": []}, "FILE: expected a list of tasks (all_query_responses.json)"),
    ],
)
def test_a_response_file_row_that_cannot_be_scored_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: Any, said: str
) -> None:
    file = tmp_path / "all_query_responses.json"
    file.write_text(json.dumps(document), encoding="utf-8")
    samples = tmp_path / "samples.json"
    samples.write_text("[]", encoding="utf-8")
    argv = ["megabench", "score", "--samples", str(samples), "--out", str(tmp_path / "o")]
    assert main([*argv, str(file)]) == 2
    err = capsys.readouterr().err.replace(str(file), "FILE")
    assert err.startswith("error: ") and err.count("\n") == 1 and said in err, err
