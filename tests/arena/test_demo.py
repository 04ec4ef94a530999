"""The demo config runs as shipped: two tiny local `hf` models (built on first use) answer a
battle with an image in one piece each, a second message keeps each model's history, and the
vote is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.arena.conftest import png
from tests.arena.drive import ask
from vlmscope.arena.build import build_arena
from vlmscope.arena.config import load_arena_config

DEMO = Path(__file__).resolve().parents[2] / "configs" / "arena_demo.yaml"


def test_the_demo_arena_battles_with_local_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the demo's model and store paths are relative
    arena = build_arena(load_arena_config(DEMO))
    first = ask(arena, "What is this?", images=[png()])
    assert len(first) == 3  # one piece per side, then the saved result
    assert first[-1].done and not (first[-1].failed_a or first[-1].failed_b)
    assert first[-1].text_a and first[-1].text_b
    second = ask(arena, "And now?", battle_id=first[-1].battle_id)[-1]
    assert second.done and not (second.failed_a or second.failed_b)
    reveal = arena.vote("session-1", "10.0.0.1", first[-1].battle_id, "tie")
    assert {reveal.model_a, reveal.model_b} == {"tiny-llava", "tiny-idefics3"}
    assert arena.store.votes()[0].record["num_turns"] == 2
    assert (tmp_path / "arena" / "battles.sqlite").exists()
    arena.store.close()
