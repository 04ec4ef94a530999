"""The ledger of a whole run against a server that reports usage: its totals are the server's.

One run, every judged track, a reasoning-API stand-in as the model and as every judge (it
reports prompt, completion and reasoning tokens), the oracle beside it. The ledger's counts of
what this run asked add up to exactly what the server counted; each details row keeps every
call behind it; the costs are the pricing file's prices times those tokens; the printed ledger
says so; and both pairwise tracks report their judge's swap consistency.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.costs.runs import (
    MODELS,
    PRICE,
    TRACKS,
    Counting,
    counting_stub,
    details,
    printed_by,
    run_counts,
    run_report,
    stub_config,
    summary,
    vlmscope_run,
    write_config,
    write_pricing,
)
from tests.servers import OpenAIStub
from vlmscope.hub_export import load_folder
from vlmscope.runner.results import board_dir


@pytest.fixture(scope="module")
def priced_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, OpenAIStub, Counting, str]:
    tmp = tmp_path_factory.mktemp("ledger")
    stub, counting = counting_stub()
    with stub:
        raw = stub_config(stub, tmp / "out", write_pricing(tmp / "prices.yaml"))
        config = write_config(tmp, raw)
        printed = printed_by(["run", "--config", str(config), "--limit", "2"])
    return tmp / "out", stub, counting, printed


def test_the_ledgers_totals_are_the_servers_counts(
    priced_run: tuple[Path, OpenAIStub, Counting, str],
) -> None:
    out, stub, counting, _ = priced_run
    total = run_report(out)["ledger"]["total"]
    assert counting.usage and len(counting.usage) == len(stub.calls)
    # every call the server answered was asked by this run; the oracle's answers cost no call
    oracle_turns = sum(summary(out, "oracle", t)["ledger"]["generate"]["requests"] for t in TRACKS)
    assert total["asked"] == len(stub.calls) + oracle_turns
    assert total["asked_prompt_tokens"] == counting.total("prompt_tokens")
    assert total["asked_completion_tokens"] == counting.total("completion_tokens")
    assert total["asked_reasoning_tokens"] == counting.total("reasoning_tokens")
    assert counting.total("reasoning_tokens") > 0  # the stand-in reasons: the count is not 0=0


def test_summaries_add_up_to_the_run_and_details_keep_every_call(
    priced_run: tuple[Path, OpenAIStub, Counting, str],
) -> None:
    out, stub, _, _ = priced_run
    by_phase: dict[str, int] = {"generate": 0, "judge": 0}
    calls_in_details = 0
    for track in TRACKS:
        for model in MODELS:
            ledger = summary(out, model, track)["ledger"]
            rows = details(out, model, track)
            calls = [c for row in rows for c in row["calls"]]
            calls_in_details += len(calls)
            for phase in by_phase:
                in_rows = [c for c in calls if c["phase"] == phase]
                assert ledger[phase]["requests"] == len(in_rows), (model, track, phase)
                assert ledger[phase]["prompt_tokens"] == sum(c["prompt_tokens"] for c in in_rows)
                by_phase[phase] += ledger[phase]["requests"]
            # a multi-turn answer is one call per turn, each with its own tokens
            for row in rows:
                turns = [c for c in row["calls"] if c["phase"] == "generate"]
                assert len(turns) == len(json.loads(row["extra"]).get("turns") or [None])
    total = run_report(out)["ledger"]["total"]
    assert total["requests"] == calls_in_details == sum(by_phase.values())
    assert by_phase["judge"] > 0 and len(stub.calls) <= calls_in_details


def test_costs_are_the_prices_times_the_tokens(
    priced_run: tuple[Path, OpenAIStub, Counting, str],
) -> None:
    out, _, counting, printed = priced_run
    total = run_report(out)["ledger"]["total"]
    spent = (
        counting.total("prompt_tokens") * PRICE["input"]
        + counting.total("completion_tokens") * PRICE["output"]
    ) / 1e6
    assert total["spent_usd"] == pytest.approx(spent)
    assert total["cost_usd"] >= total["spent_usd"] > 0
    ledger = summary(out, "oracle", "megabench")["ledger"]
    assert ledger["generate"]["cost_usd"] == 0  # the oracle costs nothing, and is priced so
    assert ledger["unpriced"] == [] and "spent_usd" not in ledger and "asked" not in ledger["judge"]
    ran = run_counts(out, "stub-model", "megabench")["ledger"]  # what this run did, apart
    assert (
        ran["generate"]["asked"]
        == summary(out, "stub-model", "megabench")["ledger"]["generate"]["requests"]
    )
    assert ran["spent_usd"] > 0
    assert "ledger:" in printed and "prices from" in printed
    assert f"{total['cost_usd']:.4f} USD" in printed


def test_without_a_price_a_cost_is_unknown_not_zero(tmp_path: Path) -> None:
    stub, _ = counting_stub()
    with stub:
        raw = stub_config(stub, tmp_path / "out")
        raw["tracks"] = raw["tracks"][1:2]  # simplevqa
        assert vlmscope_run(write_config(tmp_path, raw), limit=1) == 0
    ledger = summary(tmp_path / "out", "stub-model", "simplevqa", 1)["ledger"]
    assert ledger["cost_usd"] is None and ledger["generate"]["cost_usd"] is None
    assert ledger["unpriced"] == ["stub-judge", "stub-model"]
    assert run_report(tmp_path / "out")["ledger"]["unpriced"] == ["stub-judge", "stub-model"]


def test_pairwise_tracks_report_their_judges_swap_consistency(
    priced_run: tuple[Path, OpenAIStub, Counting, str],
) -> None:
    """The stand-in judge always says A>B: whoever is shown first wins, so every prompt's two
    games disagree, and the first-shown answer wins every game."""
    out = priced_run[0]
    for track in ("probench", "visionarena_bench"):
        found = summary(out, "stub-model", track)["consistency"]
        assert found["prompts"] == found["both_read"] == 2
        assert found["order_disagreement_rate"] == 1.0
        assert found["first_shown_win_rate"] == 1.0 and found["second_shown_win_rate"] == 0.0
        assert found["unparseable_games"] == 0 and found["unparseable_rate"] == 0.0
        (row,) = load_folder(board_dir(out, track, 2), "summary").to_list()
        board = row["board"]["settings"]["consistency"]  # typed: a struct, read as a dict
        assert set(board["models"]) == set(MODELS)
        assert board["overall"]["prompts"] == 4 and board["overall"]["games"] == 8
    assert "consistency" not in summary(out, "stub-model", "simplevqa")


def test_the_ledger_says_when_its_prices_are_the_shipped_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a folder without the checkout's configs/ (the demo elsewhere), the prices are
    read from the copy shipped with vlmscope: the ledger's line says so rather than naming a
    relative path that is not there; a pricing file that is there is named as given."""
    from vlmscope.runner.ledger import run_totals
    from vlmscope.runner.ledger_table import format_ledger

    monkeypatch.chdir(tmp_path)
    totals = run_totals([])
    shipped = format_ledger(totals, "configs/pricing_example.yaml").splitlines()[0]
    assert "prices from configs/pricing_example.yaml (the copy shipped with vlmscope, " in shipped
    (tmp_path / "mine.yaml").write_text("{}", encoding="utf-8")
    own = format_ledger(totals, "mine.yaml").splitlines()[0]
    assert own.endswith("; prices from mine.yaml")
