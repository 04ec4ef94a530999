"""The example configs for reasoning models run as written, against stand-ins for their servers.

Only the server addresses change (and the output folder): a reasoning API for
`configs/reasoning_api.yaml`, an inline-thinking server for `configs/vllm_thinking.yaml`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.reasoning.runs import details, vlmscope_run
from tests.reasoning.stubs import WRONG, InlineThinking, ReasoningAPI, Thinker
from tests.servers import OpenAIStub, Replier

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _served_by(raw: dict[str, Any], stub: OpenAIStub, out: Path) -> dict[str, Any]:
    raw["output_dir"] = str(out)
    for model in [*raw["models"], *(t["judge"] for t in raw["tracks"] if "judge" in t)]:
        model["base_url"] = stub.base_url
    return raw


@pytest.mark.parametrize(
    ("name", "replier"),
    [
        ("reasoning_api.yaml", ReasoningAPI(Thinker())),
        ("vllm_thinking.yaml", InlineThinking(Thinker())),
    ],
)
def test_example_config_runs_and_keeps_traces_apart(
    name: str, replier: Replier, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    raw = yaml.safe_load((CONFIGS / name).read_text(encoding="utf-8"))
    with OpenAIStub(replier) as stub:
        status, out = vlmscope_run(tmp_path, _served_by(raw, stub, tmp_path / "results"))
    assert status == 0
    assert getattr(replier, "refused", []) == []
    model = raw["models"][0]["name"]
    for track in raw["tracks"]:
        rows = details(out, model, track["name"])
        assert rows and all(r["status"] == "ok" and r["reasoning"] == WRONG for r in rows)
        assert all(WRONG not in r["response"] for r in rows)
