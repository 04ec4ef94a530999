"""`--budget USD`: a run stops before the request that would pass it, and resumes where it stopped.

Each case runs the same config twice against fresh stand-ins: once without a budget, and once
with a budget that stops it (in generation, or in judging), then again without one. The second
pair must end with the same results as the first, and its server must have been asked every
request once: no conversation is ever sent twice, and the two runs together ask what the
unbudgeted run asked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.costs.runs import (
    MODELS,
    TRACKS,
    counting_stub,
    details,
    run_report,
    stub_config,
    summary,
    vlmscope_run,
    write_config,
    write_pricing,
)
from tests.servers import OpenAIStub

EXPECTED = ("--output-tokens", "20", "--chars-per-token", "6", "--image-tokens", "16")
"""The estimate set to the stand-in: its replies are about 20 tokens, its prompts counted as
words (about 6 characters each) and 16 tokens per image."""
SAME_IN_DETAILS = ("sample_id", "request_hash", "response", "status", "parsed", "scores",
                   "outcome", "extra", "reasoning", "prompt_tokens", "completion_tokens")  # fmt: skip


def judge_calls(stub: OpenAIStub) -> int:
    return sum((c.body or {}).get("model") == "judge-stub" for c in stub.calls)


@pytest.fixture(scope="module")
def unbudgeted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, OpenAIStub, float]:
    tmp = tmp_path_factory.mktemp("unbudgeted")
    stub, _ = counting_stub()
    with stub:
        raw = stub_config(stub, tmp / "out", write_pricing(tmp / "prices.yaml"))
        assert vlmscope_run(write_config(tmp, raw)) == 0
    ledger = run_report(tmp / "out")["ledger"]
    return tmp / "out", stub, float(ledger["by_phase"]["generate"]["spent_usd"])


def comparable_details(out: Path, model: str, track: str) -> list[dict[str, Any]]:
    return [{k: row[k] for k in SAME_IN_DETAILS} for row in details(out, model, track)]


def comparable_summary(out: Path, model: str, track: str) -> dict[str, Any]:
    """The summary whole (its ledger is what the results stand on, however they were reached;
    what each run asked is in its `run_counts`), but where the pricing file lay."""
    found = summary(out, model, track)
    found["ledger"].pop("pricing")
    return found


@pytest.mark.parametrize("stop_in", ["generate", "judge"])
def test_a_budget_stop_then_resume_gives_the_unbudgeted_results_asking_nothing_twice(
    stop_in: str,
    unbudgeted: tuple[Path, OpenAIStub, float],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reference, reference_stub, generate_cost = unbudgeted
    total = float(run_report(reference)["ledger"]["total"]["spent_usd"])
    budget = generate_cost / 2 if stop_in == "generate" else (generate_cost + total) / 2
    stub, _ = counting_stub()
    with stub:
        raw = stub_config(stub, tmp_path / "out", write_pricing(tmp_path / "prices.yaml"))
        config = write_config(tmp_path, raw)
        assert vlmscope_run(config, "--budget", str(budget), *EXPECTED) == 3
        stopped = capsys.readouterr().err
        asked_before_resume = len(stub.calls)
        judged_before_resume = judge_calls(stub)
        assert vlmscope_run(config) == 0
    assert "budget reached" in stopped and "larger --budget" in stopped
    assert 0 < asked_before_resume < len(reference_stub.calls)
    if stop_in == "generate":
        assert judged_before_resume == 0
    else:
        assert 0 < judged_before_resume < judge_calls(reference_stub)
    # nothing asked twice: every conversation reached the server once, and no more were asked
    assert all(call.attempt == 1 for call in stub.calls)
    assert len(stub.calls) == len(reference_stub.calls)
    out = tmp_path / "out"
    for model in MODELS:
        for track in TRACKS:
            assert comparable_details(out, model, track) == comparable_details(
                reference, model, track
            ), (model, track)
            assert comparable_summary(out, model, track) == comparable_summary(
                reference, model, track
            ), (model, track)


def test_the_budget_keeps_spending_under_it_by_the_estimate(
    unbudgeted: tuple[Path, OpenAIStub, float], tmp_path: Path
) -> None:
    """What a stopped run spent (each answer's own tokens) stays within the budget, give or
    take the replies that came out longer than expected."""
    _, _, generate_cost = unbudgeted
    budget = generate_cost / 2
    stub, counting = counting_stub()
    with stub:
        raw = stub_config(stub, tmp_path / "out", write_pricing(tmp_path / "prices.yaml"))
        assert vlmscope_run(write_config(tmp_path, raw), "--budget", str(budget), *EXPECTED) == 3
    spent = sum(u["prompt_tokens"] * 2.0 + u["completion_tokens"] * 8.0 for u in counting.usage)
    assert 0 < spent / 1e6 <= budget * 1.1


def test_a_budget_needs_a_price_for_every_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub, _ = counting_stub()
    with stub:
        raw = stub_config(stub, tmp_path / "out")
        assert vlmscope_run(write_config(tmp_path, raw), "--budget", "1") == 2
        assert stub.calls == []
    error = capsys.readouterr().err
    assert "budget_usd needs a price" in error and "stub-judge, stub-model" in error
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").glob("*/*"))


def test_details_keep_json_extra_equal_across_runs(
    unbudgeted: tuple[Path, OpenAIStub, float],
) -> None:
    """The comparison above is meaningful: the details it compares hold the judge's verdicts."""
    rows = details(unbudgeted[0], "stub-model", "probench")
    assert rows and all(json.loads(r["extra"])["games"] for r in rows)
