"""`vlmscope visionarena classify` keeps a ledger of its classifier calls too (phase
`classify`), and its totals are what the usage-reporting stand-in counted."""

from __future__ import annotations

import json
from pathlib import Path

from tests.costs.runs import Counting
from tests.reasoning.stubs import ReasoningAPI, Thinker
from tests.servers import OpenAIStub
from tests.visionarena.test_classifiers import _write_data
from vlmscope.cli import main


def test_the_classify_ledger_is_the_servers_count(tmp_path: Path) -> None:
    data = _write_data(tmp_path / "data")
    replier = Counting(ReasoningAPI(Thinker()))
    with OpenAIStub(replier) as stub:
        judge = tmp_path / "judge.yaml"
        judge.write_text(
            f"backend: openai\nname: classifier\nbase_url: {stub.base_url}\nmodel: o-stub\n"
            "token_limit_field: max_completion_tokens\nsend_temperature: false\n",
            encoding="utf-8",
        )
        out = tmp_path / "out"
        argv = ["visionarena", "classify", str(data), "--judge", str(judge), "--out", str(out),
                "--categories", "captioning", "ocr"]  # fmt: skip
        assert main(argv) == 0
        assert main(argv) == 0  # again: every call cached, the same calls behind the labels
    ledger = json.loads((out / "summary.json").read_text(encoding="utf-8"))["ledger"]
    assert ledger["requests"] == len(stub.calls) == 6 and ledger["asked"] == 0
    assert ledger["prompt_tokens"] == replier.total("prompt_tokens") > 0
    assert ledger["completion_tokens"] == replier.total("completion_tokens")
    assert ledger["reasoning_tokens"] == replier.total("reasoning_tokens") > 0
