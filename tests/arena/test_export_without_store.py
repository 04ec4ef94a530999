"""`vlmscope arena export` (and `push`) of an arena nobody voted in yet says so, naming the
store and how to fill it, instead of creating an empty store there and exporting no votes."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlmscope.cli import main as vlmscope_main


@pytest.mark.parametrize("command", [["export"], ["push"]])
def test_an_arena_without_a_store_is_named(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "arena.yaml"
    store = tmp_path / "arena" / "battles.sqlite"
    model = "{backend: openai, name: %s, base_url: 'http://127.0.0.1:1/v1', model: m}"
    config.write_text(
        f"contestants: [{model % 'm1'}, {model % 'm2'}]\n"
        f"store: {{path: '{store}', hub_repo: org/votes}}\n"
    )
    out = [str(tmp_path / "out")] if command == ["export"] else []
    assert vlmscope_main(["arena", *command, str(config), *out]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: vlmscope arena {command[0]}: {config}: store.path: no vote store at {store} "
        f"(no vote cast yet): vote in the Arena tab first (vlmscope space --arena {config})"
    )
    assert not store.parent.exists() and not (tmp_path / "out").exists()
