"""The pure parts behind the ledger, the estimate and the budget, case by case."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from vlmscope.config import ConfigError, OpenAIModelConfig, OracleModelConfig
from vlmscope.judges.call_log import Call, collecting, note
from vlmscope.messages import GenerationParams, ImagePart, Response, Usage, user_request
from vlmscope.runner.budget import Budget, BudgetReached
from vlmscope.runner.ledger import ledger_summary, run_totals, tally
from vlmscope.runner.ledger_table import format_ledger, money
from vlmscope.runner.pricing import PriceList, load_prices, pricer_for
from vlmscope.runner.token_estimate import (
    EstimateSettings,
    ModelEstimate,
    approximate_counter,
    openai_image_tokens,
)
from vlmscope.tracks.swap_consistency import combined, consistency, prompt_games

API = OpenAIModelConfig(backend="openai", name="api", base_url="http://x/v1", model="gpt-x")


def game(model_first: bool, label: str | None) -> dict[str, object]:
    return {"model_first": model_first, "label": label,
            "outcome": "parsed" if label else "no_label"}  # fmt: skip


def test_swap_consistency_counts_each_prompt() -> None:
    # the model wins both orders: consistent; A wins both: order disagrees, first shown wins
    agree = prompt_games([game(False, "B>A"), game(True, "A>>B")])
    assert agree["order_disagreements"] == 0 and agree["both_read"] == 1
    assert (agree["first_shown_wins"], agree["second_shown_wins"]) == (1, 1)
    flip = prompt_games([game(False, "A>B"), game(True, "A>B")])
    assert flip["order_disagreements"] == 1 and flip["first_shown_wins"] == 2
    tie = prompt_games([game(False, "A=B"), game(True, "A>B")])  # tie vs win: disagree
    assert tie["order_disagreements"] == 1 and tie["ties"] == 1
    lost = prompt_games([game(False, None), game(True, "B<A")])  # mirrored: A wins
    assert lost["both_read"] == 0 and lost["unparseable_games"] == 1
    assert lost["first_shown_wins"] == 1
    assert consistency([]) is None
    found = consistency(
        [
            [game(False, "B>A"), game(True, "A>>B")],
            [game(False, "A>B"), game(True, "A>B")],
            [game(False, None), game(True, "A=B")],
        ]
    )
    assert found is not None
    assert found["order_disagreement_rate"] == 0.5  # 1 of the 2 prompts read in both orders
    assert found["unparseable_rate"] == pytest.approx(1 / 6)
    assert found["first_shown_win_rate"] == 3 / 5 and found["tie_rate"] == 1 / 5
    assert combined([found, found])["prompts"] == 6  # type: ignore[index]


def test_a_single_game_is_never_a_disagreement() -> None:
    one = prompt_games([game(False, "A>B")])
    assert one["both_read"] == 0 and one["order_disagreements"] == 0


def call(model: str, prompt: int, completion: int, *, cached: bool = False) -> Call:
    return Call("judge", model, cached, True, prompt, completion, 0, 0.5)


def test_tallies_price_tokens_and_keep_unknown_unknown() -> None:
    prices = PriceList.model_validate({"models": {"api": {"input": 1, "output": 4}}})
    pricer = pricer_for([API, OracleModelConfig(backend="oracle")], prices)
    found = tally([call("api", 1000, 100), call("api", 1000, 100, cached=True)], pricer)
    assert (found.requests, found.asked) == (2, 1)
    assert found.cost_usd == pytest.approx(2 * (1000 + 400) / 1e6)
    assert found.spent_usd == pytest.approx((1000 + 400) / 1e6)
    assert found.asked_prompt_tokens == 1000
    assert tally([call("oracle", 0, 0)], pricer).cost_usd == 0.0
    unknown = tally([call("api", 10, 10), call("mystery", 10, 10)], pricer)
    assert unknown.cost_usd is None and unknown.prompt_tokens == 20
    ledger = ledger_summary("api", [call("api", 5, 5)], [call("mystery", 1, 1)], pricer)
    assert ledger["unpriced"] == ["mystery"] and ledger["cost_usd"] is None
    assert ledger["judge"]["by_judge"]["mystery"]["requests"] == 1
    totals = run_totals([("api", "t1", ledger), ("api", "t2", ledger)])
    assert totals.total.requests == 4 and totals.by_phase["judge"].requests == 2
    assert totals.by_model["api"].cost_usd is None and totals.unpriced == ("mystery",)
    printed = format_ledger(totals, "prices.yaml")
    assert "no price for: mystery" in printed and "n/a" in printed
    assert money(0.01234) == "0.0123 USD" and money(None) == "n/a"


def test_a_pricing_file_is_checked_by_field(tmp_path: Path) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text("models:\n  gpt-x: {input: -1, output: 2}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"prices.yaml: models.gpt-x.input: Input should be"):
        load_prices(bad)
    good = tmp_path / "good.yaml"
    good.write_text("models:\n  gpt-x: {input: 1, output: 2}\n", encoding="utf-8")
    pricer = pricer_for([API], load_prices(good))  # priced by the model id it sends
    assert pricer.cost("api", 1_000_000, 0) == 1.0


def test_judge_calls_are_noted_per_context_only() -> None:
    note(call("x", 1, 1))  # outside a collection: kept nowhere
    with collecting() as outer:
        note(call("a", 1, 1))
        with collecting() as inner:
            note(call("b", 1, 1))
        note(call("c", 1, 1))
    assert [c.model for c in outer] == ["a", "c"] and [c.model for c in inner] == ["b"]


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_image_tokens_follow_openais_tile_rule() -> None:
    assert openai_image_tokens(ImagePart(png(512, 512))) == 85 + 170
    assert openai_image_tokens(ImagePart(png(1024, 1024))) == 85 + 170 * 4  # 768 x 768
    assert openai_image_tokens(ImagePart(png(2048, 4096))) == 1105  # OpenAI's own example
    assert openai_image_tokens(ImagePart(png(4096, 1024))) == 85 + 170 * 4  # 2048 x 512
    assert openai_image_tokens(ImagePart(b"not an image")) == 85


def test_the_approximation_counts_text_images_and_messages() -> None:
    request = user_request("x" * 40, png(10, 10), system="s" * 8)
    counted = approximate_counter(API, EstimateSettings(chars_per_token=4, image_tokens=7))
    assert counted(request) == 40 // 4 + 8 // 4 + 2 * 4 + 7


def test_a_budget_reserves_before_and_settles_after() -> None:
    prices = PriceList.model_validate({"models": {"api": {"input": 1e6, "output": 0}}})
    pricer = pricer_for([API], prices)  # one dollar per prompt token
    estimate = ModelEstimate("api", lambda r: 1, 0, "one token", "none")
    budget = Budget(2.5, pricer, {"api": estimate})
    request = user_request("hello", params=GenerationParams(max_new_tokens=5))
    tickets = budget.admit("api", [request] * 4)
    assert len(tickets) == 2 and budget.stopped  # the third would pass 2.5
    with pytest.raises(BudgetReached, match=r"spent 0.0000 of 2.5000 USD"):
        budget.reserve("api", request)  # stopped stays stopped
    budget.settle(tickets[0], Response("ok", usage=Usage(prompt_tokens=2)))
    assert budget.spent == 2.0 and budget.reserved == 1.0
