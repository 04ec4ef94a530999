"""Pairs are drawn by the configured rule, and a bad arena config names its field."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from vlmscope.arena.config import ArenaConfig, Pairing, load_arena_config
from vlmscope.arena.pairing import draw_pair
from vlmscope.config import ConfigError

NAMES = ("a", "b", "c", "d")
REPO = Path(__file__).resolve().parents[2]


def test_uniform_pairs_are_all_equally_likely_and_sides_balanced() -> None:
    rng = random.Random(7)
    draws = [draw_pair(NAMES, Pairing(), rng) for _ in range(12_000)]
    assert all(a != b for a, b in draws)
    pairs = Counter(frozenset(d) for d in draws)
    assert len(pairs) == 6
    assert all(1800 < n < 2200 for n in pairs.values())  # 2000 expected each
    as_a = Counter(a for a, _ in draws)
    assert all(2700 < n < 3300 for n in as_a.values())  # 3000 expected each


def test_weighted_pairs_follow_the_product_of_weights() -> None:
    rng = random.Random(3)
    pairing = Pairing(rule="weighted", weights={"a": 4.0})
    draws = [frozenset(draw_pair(NAMES, pairing, rng)) for _ in range(9000)]
    with_a = sum("a" in d for d in draws) / len(draws)
    assert with_a == pytest.approx(12 / 15, abs=0.02)  # pairs with a weigh 4, the other 3 weigh 1


def test_a_battle_needs_two_models() -> None:
    with pytest.raises(ValueError, match="two different"):
        draw_pair(("a", "a"), Pairing(), random.Random(0))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "arena.yaml"
    path.write_text(text)
    return path


def test_config_errors_name_the_field(tmp_path: Path) -> None:
    model = "{backend: openai, name: %s, base_url: 'http://127.0.0.1:1/v1', model: m}"
    one = _write(tmp_path, f"contestants: [{model % 'x'}]")
    with pytest.raises(ConfigError, match="contestants"):
        load_arena_config(one)
    twice = _write(tmp_path, f"contestants: [{model % 'x'}, {model % 'x'}]")
    with pytest.raises(ConfigError, match=r"contestants\.1\.name"):
        load_arena_config(twice)
    hook = _write(tmp_path, f"contestants: [{model % 'x'}, {model % 'y'}]\nmoderation: 'rm -rf'")
    with pytest.raises(ConfigError, match="moderation"):
        load_arena_config(hook)
    weight = _write(
        tmp_path,
        f"contestants: [{model % 'x'}, {model % 'y'}]\npairing: {{rule: weighted, weights: {{z: 2}}}}",
    )
    with pytest.raises(ConfigError, match=r"pairing\.weights\.z"):
        load_arena_config(weight)
    coin = _write(tmp_path, f"contestants: [{model % 'x'}, {{backend: coin, name: c}}]")
    with pytest.raises(ConfigError, match=r"contestants\.1\.backend"):
        load_arena_config(coin)


def test_the_demo_config_loads() -> None:
    config = load_arena_config(REPO / "configs" / "arena_demo.yaml")
    assert isinstance(config, ArenaConfig)
    assert len(config.names) == 2 and config.pairing.rule == "uniform"


def test_a_misspelt_key_is_named_with_the_one_meant(tmp_path: Path) -> None:
    model = "{backend: openai, name: %s, base_url: 'http://127.0.0.1:1/v1', model: m}"
    top = _write(tmp_path, f"contestants: [{model % 'x'}, {model % 'y'}]\npairng: {{}}")
    with pytest.raises(ConfigError, match=r"pairng: unknown key; did you mean 'pairing'\?$"):
        load_arena_config(top)
    bad = model[:-1] % "y" + ", timeout: 3}"
    inner = _write(tmp_path, f"contestants: [{model % 'x'}, {bad}]")
    with pytest.raises(
        ConfigError, match=r"contestants\.1\.timeout \(openai model\): unknown key; did you "
    ):
        load_arena_config(inner)
