"""Whole runs against a reasoning-API stand-in that reports usage, and what the tests read back.

The stub (`tests.reasoning.stubs.ReasoningAPI`) answers models and judges alike, reports prompt,
completion and reasoning tokens, and `Counting` keeps every reply it gave, so a test can add up
what the server counted and hold the run's ledger to it.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from pathlib import Path
from typing import Any

import yaml

from tests.reasoning.stubs import ReasoningAPI, Thinker
from tests.servers import Call, OpenAIStub, Reply, _completion
from vlmscope.cli import main
from vlmscope.hub_export import load_folder
from vlmscope.runner.results import result_dir

API_FIELDS = {"token_limit_field": "max_completion_tokens", "send_temperature": False}
PRICE = {"input": 2.0, "output": 8.0}
LIMIT = 2


class Counting:
    """A replier that keeps each (call, reply) and the usage the stub reported for it."""

    def __init__(self, inner: ReasoningAPI) -> None:
        self.inner = inner
        self.usage: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, call: Call) -> Reply:
        reply = self.inner(call)
        if reply.status == 200 and reply.body is None:
            usage = json.loads(_completion(call, reply))["usage"]
            with self._lock:
                self.usage.append(usage)
        return reply

    def total(self, name: str) -> int:
        if name == "reasoning_tokens":
            return sum(u.get("completion_tokens_details", {}).get(name, 0) for u in self.usage)
        return sum(int(u[name]) for u in self.usage)


def api_model(stub: OpenAIStub, name: str, model: str = "o-stub") -> dict[str, Any]:
    return {"backend": "openai", "name": name, "base_url": stub.base_url, "model": model,
            "max_retries": 0, **API_FIELDS}  # fmt: skip


def stub_config(stub: OpenAIStub, out: Path, pricing: Path | None = None) -> dict[str, Any]:
    """Every judged track: the stub as the model and as every judge, the oracle beside it."""
    judge = api_model(stub, "stub-judge", "judge-stub")
    raw: dict[str, Any] = {
        "output_dir": str(out),
        "models": [api_model(stub, "stub-model"), {"backend": "oracle"}],
        "tracks": [
            {"name": "megabench", "subset": "full", "judge": judge},
            {"name": "simplevqa", "judge": judge, "options": {"bootstrap_rounds": 20}},
            {"name": "probench", "judge": judge, "options": {"bootstrap_rounds": 20}},
            {"name": "visionarena_bench", "judge": judge,
             "options": {"anchor_answers": "anchor_answers.jsonl", "bootstrap_rounds": 20}},
        ],
    }  # fmt: skip
    if pricing is not None:
        raw["pricing"] = str(pricing)
    return raw


def write_pricing(path: Path) -> Path:
    path.write_text(
        yaml.safe_dump({"currency": "USD", "models": {"stub-model": PRICE, "stub-judge": PRICE}}),
        encoding="utf-8",
    )
    return path


def write_config(tmp_path: Path, raw: dict[str, Any], name: str = "run") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return path


def vlmscope_run(config: Path, *flags: str, limit: int = LIMIT) -> int:
    return main(["run", "--config", str(config), "--limit", str(limit), *flags])


def printed_by(argv: list[str]) -> str:
    """What a `vlmscope` command that succeeds prints (for a module fixture, without capsys)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(argv) == 0
    return buffer.getvalue()


def counting_stub() -> tuple[OpenAIStub, Counting]:
    replier = Counting(ReasoningAPI(Thinker()))
    return OpenAIStub(replier), replier


def details(out: Path, model: str, track: str, limit: int | None = LIMIT) -> list[dict[str, Any]]:
    return load_folder(result_dir(out, model, track, limit), "details").to_list()


def summary(out: Path, model: str, track: str, limit: int | None = LIMIT) -> dict[str, Any]:
    row = load_folder(result_dir(out, model, track, limit), "summary")[0]
    return dict(row["scores"])  # typed: a struct, read as a dict


def run_counts(out: Path, model: str, track: str, limit: int | None = LIMIT) -> dict[str, Any]:
    """What the run that wrote the result did (its ledger's `asked`, `spent_usd`, ...)."""
    row = load_folder(result_dir(out, model, track, limit), "summary")[0]
    return dict(row["run_counts"])


def run_report(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "run_report.json").read_text(encoding="utf-8")))


TRACKS = ("megabench", "simplevqa", "probench", "visionarena_bench")
MODELS = ("stub-model", "oracle")
