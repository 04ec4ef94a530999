"""VisionArena's category classifiers asked of a reasoning API (`vlmscope visionarena classify`).

The stub's thought says no, its answer yes (`tests.reasoning.stubs`): every label is read from
the answer, and the labels keep each classifier's trace and its tokens beside the reply.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from tests.reasoning.stubs import REASONING_TOKENS, ReasoningAPI, Thinker
from tests.servers import OpenAIStub
from tests.visionarena.test_classifiers import _write_data
from vlmscope.cli import main


def test_labels_come_from_the_answers_and_keep_the_traces(tmp_path: Path) -> None:
    data = _write_data(tmp_path / "data")
    replier = ReasoningAPI(Thinker())
    with OpenAIStub(replier) as stub:
        judge = tmp_path / "judge.yaml"
        judge.write_text(
            f"backend: openai\nname: flash-thinking\nbase_url: {stub.base_url}\nmodel: o-stub\n"
            "token_limit_field: max_completion_tokens\nsend_temperature: false\n",
            encoding="utf-8",
        )
        out = tmp_path / "out"
        argv = ["visionarena", "classify", str(data), "--judge", str(judge), "--out", str(out)]
        assert main([*argv, "--categories", "captioning", "ocr"]) == 0
    assert replier.refused == [] and len(stub.calls) == 6
    labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    for row in labels:
        assert row["captioning"] is True and row["ocr"] is True  # not the thought's "no"
        assert row["ocr_reasoning"] == "Not <decision>no</decision> after all."
        assert row["ocr_reasoning_tokens"] == REASONING_TOKENS
    assert pq.read_table(out / "labels.parquet").to_pylist() == labels
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge"]["options"] == {
        "token_limit_field": "max_completion_tokens",
        "send_temperature": False,
    }
