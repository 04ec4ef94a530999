"""A run whose requests failed says why after its table, not only how many: the error of each
failed request was kept in the details alone, and a run without its API key ended on a table
of zeros with no word of the key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vlmscope.cli import main
from vlmscope.messages import Response, Status
from vlmscope.runner.failure_causes import CAUSE_CHARS, failure_causes, format_failure_causes

KEY_ENV = "VLMSCOPE_TEST_KEY_NEVER_SET"


def failed(error: str) -> Response:
    return Response(text="", status=Status.REQUEST_FAILED, error=error)


def test_causes_are_counted_most_frequent_first_and_cut_to_one_line() -> None:
    long = "server said:\n" + "x" * 1000
    responses = [failed("a"), Response(text="ok"), failed("b"), failed("b"), failed(long)]
    causes = failure_causes(responses)
    assert list(causes.items())[:2] == [("b", 2), ("a", 1)]
    (cut,) = (c for c in causes if c.startswith("server said:"))
    assert "\n" not in cut and len(cut) == CAUSE_CHARS and cut.endswith("…")
    assert failure_causes([Response(text="fine")]) == {}
    # a failure without an error text counts under its status as the details spell it
    silent = Response(text="", status=Status.CONTEXT_OVERFLOW)
    assert failure_causes([silent]) == {"context_overflow": 1}


def test_only_the_first_causes_are_listed_and_the_rest_counted() -> None:
    text = format_failure_causes([("m", "t", {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1})])
    lines = text.splitlines()
    assert lines[1:] == [
        "  m / t: 5 failed: a",
        "  m / t: 4 failed: b",
        "  m / t: 3 failed: c",
        "  m / t: 3 more failed, with 2 other error(s)",
    ]
    assert format_failure_causes([]) == ""


def test_a_run_without_its_api_key_names_the_variable_after_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    config = {
        "output_dir": str(tmp_path / "out"),
        "models": [
            {
                "backend": "openai",
                "name": "api-model",
                "base_url": "http://127.0.0.1:9/v1",
                "model": "m",
                "api_key_env": KEY_ENV,
            }
        ],
        "tracks": [{"name": "simplevqa", "options": {"grader": "offline_match"}}],
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["run", "--config", str(path), "--limit", "2"]) == 0
    out = capsys.readouterr().out
    table, _, after = out.partition("failed requests")
    assert "api-model" in table and after
    assert f"api-model / simplevqa: 2 failed: environment variable {KEY_ENV}" in after
