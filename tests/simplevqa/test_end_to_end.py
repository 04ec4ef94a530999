"""The whole path on the sample: runner -> oracle / tiny model -> grader over HTTP -> result datasets.

The judge is a local OpenAI-compatible server: the test stub, whose replier grades like the
SimpleVQA grader by exact match (so the numbers can be checked), and once `transformers serve`
on the tiny llava, exactly as the demo config documents (its grades are noise, their accounting
is not). The real OpenAI backend, judge cache, reply parsing, summaries and writer all run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.servers import Call, OpenAIStub
from tests.simplevqa.exact_grader import grader_reply
from vlmscope.config import parse_config
from vlmscope.hub_export import load_folder
from vlmscope.runner.loop import run
from vlmscope.runner.results import result_dir

DEMO = Path(__file__).resolve().parents[2] / "configs" / "simplevqa_demo.yaml"


def grade_like_a_grader(call: Call) -> str:
    return grader_reply(call.prompt)


def _config(stub: OpenAIStub, tmp_path: Path, models: list[dict[str, Any]]) -> dict[str, Any]:
    raw = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    raw["output_dir"] = str(tmp_path / "results")
    raw["models"] = models
    track = raw["tracks"][0]
    track["judge"]["base_url"] = stub.base_url
    track["options"]["bootstrap_rounds"] = 200
    return raw


def test_oracle_run_writes_details_and_summary_with_tables(tmp_path: Path) -> None:
    with OpenAIStub(grade_like_a_grader) as stub:
        config = parse_config(_config(stub, tmp_path, [{"backend": "oracle"}]))
        report = run(config)
        asked = len(stub.calls)
        run(config)  # a second run re-asks nothing: every grade is cached
        assert len(stub.calls) == asked == 12
    assert all(c.body is not None and c.body["temperature"] == 0.0 for c in stub.calls)
    assert all("image_url" not in json.dumps(c.body) for c in stub.calls)

    folder = result_dir(config.output_dir, "oracle", "simplevqa")
    assert report.tracks[0].result_dir == folder
    details = load_folder(folder, "details")
    assert (
        len(details) == 12
        and set(details["outcome"]) == {"ok"}
        and set(details["parsed"]) == {"correct"}
    )
    assert json.loads(details[0]["extra"])["grader_replies"] == ["A"]
    summary = load_folder(folder, "summary")[0]["scores"]
    assert summary["CO"] == 1.0 and summary["F"] == 1.0 and summary["n_graded"] == 6
    for key in ("by_language", "by_task_category", "by_domain"):
        assert len(summary[key]) >= 2 and all(t["ci95"] is not None for t in summary[key].values())
    assert summary["atomic"]["cells"]["both_correct"] == 6
    assert (folder / "simplevqa_tables.md").is_file()


@pytest.mark.timeout(300)
def test_demo_config_runs_the_tiny_model(tmp_path: Path) -> None:
    with OpenAIStub(grade_like_a_grader) as stub:
        raw = _config(stub, tmp_path, yaml.safe_load(DEMO.read_text(encoding="utf-8"))["models"])
        raw["models"][0]["path"] = str(tmp_path / "tiny-llava")
        report = run(parse_config(raw))
    by_model = {t.model: t.summary for t in report.tracks}
    assert set(by_model) == {"tiny-llava", "oracle"} and by_model["oracle"]["CO"] == 1.0
    tiny = by_model["tiny-llava"]
    assert tiny["n_items"] == 6 and tiny["n_graded"] == 6 and tiny["outcomes"] == {"ok": 6}
    assert tiny["CO"] < 1.0  # random weights do not read images


@pytest.mark.timeout(300)
def test_demo_config_with_a_judge_served_by_transformers_serve(tmp_path: Path) -> None:
    """The demo as documented: tiny llava and oracle, judged by `transformers serve` on the tiny
    llava. Its replies are noise, so grades may be unparseable, but every item must end graded
    or visibly unparseable, never dropped or failed."""
    from transformers.utils.import_utils import is_serve_available

    from tests.servers import transformers_serve
    from vlmscope.models.tiny import ensure_tiny_model

    if not is_serve_available():
        pytest.skip("transformers serve needs fastapi, uvicorn, pydantic and openai")
    model_dir = ensure_tiny_model(tmp_path / "tiny-llava", "llava")
    with transformers_serve(model_dir, tmp_path) as base_url:
        raw = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
        raw.update(output_dir=str(tmp_path / "results"), limit=2)
        raw["models"][0]["path"] = str(model_dir)
        raw["tracks"][0]["judge"].update(base_url=base_url, model=str(model_dir), max_new_tokens=4)
        raw["tracks"][0]["options"].update(bootstrap_rounds=50)
        report = run(parse_config(raw))
    assert [t.model for t in report.tracks] == ["tiny-llava", "oracle"]
    for track in report.tracks:
        summary = track.summary
        assert (
            summary["n_items"] == 2
            and summary["atomic"]["n_pairs"] + summary["atomic"]["n_unpaired"] == 2
        )
        assert summary["n_graded"] + summary["n_judge_unparseable"] == 2
        assert set(summary["outcomes"]) <= {"ok", "judge_unparseable"}
        folder = result_dir(raw["output_dir"], track.model, "simplevqa", raw["limit"])
        details = load_folder(folder, "details")
        assert len(details) == 4
        assert all(1 <= len(json.loads(e)["grader_replies"]) <= 2 for e in details["extra"])
