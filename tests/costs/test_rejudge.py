"""`vlmscope rejudge`: the same answers, another judge; only what a judge decides changes.

A run against the stand-in server (its judge grades exactly and always prefers Assistant A) is
judged again by the `coin` stand-in while the server still listens: not one more request
reaches it, so no model was asked. Every answer in the new results is the old one; MEGA-Bench's
rule-scored queries keep their scores while its judged ones (Open) take the coin's; SimpleVQA's
grades and the pairwise boards change; the audit is printed and written. A second rejudge
without the run's cache reads the answers from the run's details instead.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.costs.runs import (
    MODELS,
    TRACKS,
    counting_stub,
    details,
    printed_by,
    run_counts,
    stub_config,
    summary,
    vlmscope_run,
    write_config,
    write_pricing,
)
from tests.servers import OpenAIStub
from vlmscope.cli import main
from vlmscope.leaderboard.load import ResultsLocation, find_result_folders

COIN = {"backend": "coin", "name": "coin-b", "labels": ["A>>B", "A=B", "B>A"],
        "reply": "A\n**Score**: 6\n[[{label}]]"}  # fmt: skip
"""A stand-in whose reply every track reads: a SimpleVQA grade (A, correct), a MEGA-Bench
score (6) and a pairwise label picked by hashing the request."""
ANSWER_FIELDS = ("sample_id", "request_hash", "response", "status", "reasoning",
                 "prompt_tokens", "completion_tokens")  # fmt: skip


@pytest.fixture(scope="module")
def rejudged(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, OpenAIStub, int, str]:
    tmp = tmp_path_factory.mktemp("rejudge")
    stub, _ = counting_stub()
    judge = tmp / "coin.yaml"
    judge.write_text(yaml.safe_dump(COIN), encoding="utf-8")
    with stub:
        raw = stub_config(stub, tmp / "out", write_pricing(tmp / "prices.yaml"))
        assert vlmscope_run(write_config(tmp, raw)) == 0
        asked = len(stub.calls)
        printed = printed_by(["rejudge", str(tmp / "out"), "--judge", str(judge)])
        assert len(stub.calls) == asked  # the rejudge asked the server nothing: no model
    return tmp / "out", tmp / "out" / "_judges" / "coin-b", stub, asked, printed


def answers(out: Path, model: str, track: str) -> list[dict[str, Any]]:
    return [{k: row[k] for k in ANSWER_FIELDS} for row in details(out, model, track)]


def test_every_answer_is_the_runs(rejudged: tuple[Path, Path, OpenAIStub, int, str]) -> None:
    old, new, *_ = rejudged
    for model in MODELS:
        for track in TRACKS:
            assert answers(new, model, track) == answers(old, model, track), (model, track)
            assert summary(new, model, track)["ledger"]["generate"]["requests"] > 0
            assert run_counts(new, model, track)["ledger"]["generate"]["asked"] == 0
            judge = summary(new, model, track)["judge"]
            assert judge["judge"] == "coin-b"


def test_only_judged_numbers_change(rejudged: tuple[Path, Path, OpenAIStub, int, str]) -> None:
    old, new, *_ = rejudged
    for model in MODELS:
        before = {r["sample_id"]: r for r in details(old, model, "megabench")}
        for row in details(new, model, "megabench"):
            judged = json.loads(row["extra"])["judge_replies"]
            if judged:  # an Open query: the coin's score, 6/10
                assert json.loads(row["scores"])["query_score"] == 0.6
            else:  # rule-scored: untouched
                assert row["scores"] == before[row["sample_id"]]["scores"]
        assert summary(new, model, "megabench")["core"] == summary(old, model, "megabench")["core"]
        assert (
            summary(new, model, "megabench")["open"]
            == 0.6
            != summary(old, model, "megabench")["open"]
        )
    # the stand-in server graded the stand-in model's answer incorrect; the coin says correct
    assert summary(old, "stub-model", "simplevqa")["CO"] == 0.0
    assert summary(new, "stub-model", "simplevqa")["CO"] == 1.0
    for track in ("probench", "visionarena_bench"):
        labels = [
            g["label"]
            for r in details(new, "stub-model", track)
            for g in json.loads(r["extra"])["games"]
        ]
        assert set(labels) <= {"A>>B", "A=B", "B>A"}


def test_the_audit_is_printed_and_written(
    rejudged: tuple[Path, Path, OpenAIStub, int, str],
) -> None:
    _, new, _, _, printed = rejudged
    assert "audit: coin-b (new) against stub-judge (the run's judge)" in printed
    for track in TRACKS:
        assert f"\n{track}\n" in printed
    assert "rank old  rank new  change" in printed and "intervals moved most:" in printed
    assert f"browse: vlmscope space {new}" in printed  # a command that works outside a checkout
    audit = json.loads((new / "audit.json").read_text())
    assert audit["judge"] == "coin-b" and set(audit["tracks"]) == set(TRACKS)
    board = audit["tracks"]["probench"]
    assert board["kind"] == "board" and board["pinned"] == "gpt-4o-2024-05-13"
    assert {m["model"] for m in board["models"]} == set(MODELS)
    assert set(board["agreement"]) >= {"spearman", "kendall_tau", "confidence_agreement"}
    headlines = audit["tracks"]["megabench"]
    assert headlines["kind"] == "headlines" and headlines["over"] == "overall"
    open_scores = {m["model"]: m["open"] for m in headlines["models"]}
    assert open_scores["stub-model"][1] == 0.6


def test_the_space_keeps_rejudged_results_apart(
    rejudged: tuple[Path, Path, OpenAIStub, int, str],
) -> None:
    old, new, *_ = rejudged
    in_run = find_result_folders(ResultsLocation.local(old))
    assert in_run and not any("_judges" in str(f) for f in in_run)
    assert len(find_result_folders(ResultsLocation.local(new))) == len(TRACKS) * len(MODELS) + 2


def test_without_the_cache_answers_come_from_the_details(
    rejudged: tuple[Path, Path, OpenAIStub, int, str], tmp_path: Path
) -> None:
    old, new, *_ = rejudged
    copy = tmp_path / "results"
    shutil.copytree(old, copy, ignore=shutil.ignore_patterns("_judges", "cache.sqlite*"))
    judge = tmp_path / "coin.yaml"
    judge.write_text(yaml.safe_dump(COIN), encoding="utf-8")
    printed = printed_by(["rejudge", str(copy), "--judge", str(judge), "--tracks", "probench"])
    assert "answers were not in the cache and were read from the details" in printed
    again = copy / "_judges" / "coin-b"
    for model in MODELS:  # the multi-turn answers too: the same judge requests, same verdicts
        assert answers(again, model, "probench") == answers(old, model, "probench")
        assert [r["extra"] for r in details(again, model, "probench")] == [
            r["extra"] for r in details(new, model, "probench")
        ]


def test_a_track_without_a_judge_is_refused_by_name(
    rejudged: tuple[Path, Path, OpenAIStub, int, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = rejudged[0]
    judge = tmp_path / "coin.yaml"
    judge.write_text(yaml.safe_dump(COIN), encoding="utf-8")
    assert main(["rejudge", str(old), "--judge", str(judge), "--tracks", "nope"]) == 2
    assert "--tracks: nope not in the run" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("backend: openai\nname: x\n", encoding="utf-8")
    assert main(["rejudge", str(old), "--judge", str(bad)]) == 2
    assert f"{bad}: base_url (openai model): Field required" in capsys.readouterr().err
