"""Without a browser: the Space gets an Arena tab only when an arena config is given, its
layout carries no model name, and what the tab shows is text (a model's markup kept as
characters, a failed side said plainly, the names only in the note after the vote)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
import yaml

from tests.arena.conftest import NAMES, MakeArena, config_dict
from tests.arena.drive import ask
from tests.arena.sse_stub import SSEStub
from vlmscope.arena.battles import Battle
from vlmscope.arena.service import Reveal, Update
from vlmscope.arena.view import FAILED, reveal_note, transcript
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore


@pytest.fixture(scope="module")
def space() -> tuple[ModuleType, ModuleType]:
    from vlmscope.cli.space import app, arena_tab

    return app, arena_tab


def _labels(demo: object) -> list[object]:
    return [getattr(block, "label", None) for block in demo.blocks.values()]  # type: ignore[attr-defined]


def test_the_tab_comes_with_a_config_and_names_no_model(
    space: tuple[ModuleType, ModuleType], make_arena: MakeArena, tmp_path: Path
) -> None:
    app, arena_tab = space
    results = ResultStore(ResultsLocation.local(tmp_path))
    assert "Arena" not in _labels(app.build_app(results))
    demo = app.build_app(results, make_arena())
    labels = _labels(demo)
    assert {"Arena", "Model A", "Model B", "Overview"} <= set(labels)
    layout = json.dumps(demo.get_config_file(), default=str)
    assert "arena-vote-bothbad" in layout
    assert not any(name in layout for name in NAMES)
    assert arena_tab.arena_from_env({}) is None


def test_the_arena_is_built_from_the_environment(
    space: tuple[ModuleType, ModuleType], stubs: tuple[SSEStub, SSEStub], tmp_path: Path
) -> None:
    _, arena_tab = space
    config = tmp_path / "arena.yaml"
    config.write_text(yaml.safe_dump(config_dict(stubs, tmp_path / "votes.sqlite")))
    arena = arena_tab.arena_from_env({arena_tab.ENV: str(config)})
    assert arena.config.names == NAMES
    assert ask(arena, "hi")[-1].done  # its clients reach the stubs
    assert (tmp_path / "votes.sqlite").exists()


def _battle() -> Battle:
    battle = Battle("b", "q", "s", "x", "y", 0.0).asked("<b>first</b>", ("h",))
    return battle.answered_with("<script>a()</script>", "plain").asked("second", ())


def test_transcripts_are_text_and_name_no_model() -> None:
    live = Update("b", "<img src=x onerror=alert(1)>", "partial", done=False)
    side_a = transcript(_battle(), "a", live)
    assert side_a == (
        "You (1 image(s) + text): <b>first</b>\n\nModel A: <script>a()</script>\n\n"
        "You (text): second\n\nModel A: <img src=x onerror=alert(1)>"
    )
    failed = Update("b", "", "", done=True, failed_b=True)
    assert transcript(_battle(), "b", failed).endswith(f"Model B: {FAILED}")
    assert "\u241b" in transcript(_battle(), "a", Update("b", "\x1b[31m", ""))  # ESC made visible


def test_the_reveal_note_escapes_names() -> None:
    note = reveal_note(Reveal("<b>x</b>", "y_[z]", "tie (bothbad)", stored_now=False))
    assert "&lt;b&gt;x&lt;/b&gt;" in note and "y\\_\\[z\\]" in note
    assert "Both are bad" in note and "already recorded" in note


def test_a_refresh_timer_only_when_configured(
    space: tuple[ModuleType, ModuleType], make_arena: MakeArena, tmp_path: Path
) -> None:
    import gradio as gr

    app, _ = space
    results = ResultStore(ResultsLocation.local(tmp_path))

    def timers(demo: object) -> list[float]:
        blocks = demo.blocks.values()  # type: ignore[attr-defined]
        return [b.value for b in blocks if isinstance(b, gr.Timer)]

    assert timers(app.build_app(results, make_arena())) == []
    board = {"refresh_s": 30, "bootstrap_rounds": 10}
    assert timers(app.build_app(results, make_arena(board=board))) == [30]


def _handler(demo: object, api_name: str) -> Any:
    fns = demo.fns.values()  # type: ignore[attr-defined]
    return next(f.fn for f in fns if f.api_name == api_name)


def _request(session: str = "s1", headers: dict[str, str] | None = None) -> Any:
    peer = SimpleNamespace(host="10.0.0.1")
    return SimpleNamespace(session_hash=session, client=peer, headers=headers or {})


def _asked(ask_handler: Any, text: str, request: Any = None) -> list[list[Any]]:
    async def collect() -> list[list[Any]]:
        sent = {"text": text, "files": []}
        return [row async for row in ask_handler(sent, None, request or _request())]

    return asyncio.run(collect())


def test_a_message_both_sides_fail_says_so_even_with_no_piece_shown(
    space: tuple[ModuleType, ModuleType], make_arena: MakeArena, tmp_path: Path
) -> None:
    """Both models failing before any piece gives one update only; it must still tell the user
    what to do and clear the sent message, with the votes closed."""
    app, arena_tab = space
    results = ResultStore(ResultsLocation.local(tmp_path))
    with SSEStub(lambda m: "", fail=True) as down:
        broken = make_arena(
            contestants=[
                {
                    "backend": "openai",
                    "name": name,
                    "base_url": down.base_url,
                    "model": "m",
                    "max_retries": 0,
                }  # fmt: skip
                for name in NAMES
            ]
        )
        rows = _asked(_handler(app.build_app(results, broken), "ask"), "anyone?")
    assert len(rows) == 1  # no piece came, so the done update is also the first
    battle_id, side_a, side_b, message, *rest = rows[0]
    vote_updates, status = rest[:-1], rest[-1]
    assert battle_id and status == arena_tab.FAILED_NOTE
    assert message == {"__type__": "update", "value": None, "interactive": False}
    assert all(vote["interactive"] is False for vote in vote_updates)
    assert side_a.endswith(f"Model A: {FAILED}") and side_b.endswith(f"Model B: {FAILED}")


def test_answers_stream_then_open_the_votes(
    space: tuple[ModuleType, ModuleType], make_arena: MakeArena, tmp_path: Path
) -> None:
    app, arena_tab = space
    results = ResultStore(ResultsLocation.local(tmp_path))
    rows = _asked(_handler(app.build_app(results, make_arena()), "ask"), "hello")
    assert len(rows) > 2
    first, last = rows[0], rows[-1]
    assert first[3]["value"] is None and first[3]["interactive"] is False  # message cleared
    assert all(row[-1] == "" for row in rows)
    assert all(vote["interactive"] is True for vote in last[4:-1])
    assert last[3] == {"__type__": "update", "interactive": True}


def test_the_address_limit_keys_on_what_the_proxy_wrote(
    space: tuple[ModuleType, ModuleType], make_arena: MakeArena, tmp_path: Path
) -> None:
    """Behind a proxy that appends to X-Forwarded-For, new sessions with made-up first entries
    are still one address: the second ask over `asks_per_ip` is refused."""
    app, _ = space
    limits = {"ip_header": "x-forwarded-for", "asks_per_ip": 1}
    arena = make_arena(limits=limits)
    ask_handler = _handler(
        app.build_app(ResultStore(ResultsLocation.local(tmp_path)), arena), "ask"
    )
    statuses = []
    for number in (1, 2):
        headers = {"x-forwarded-for": f"203.0.113.{number}, 198.51.100.7"}
        rows = _asked(ask_handler, "hello", _request(f"session-{number}", headers))
        statuses.append(rows[-1][-1])
    assert statuses[0] == "" and statuses[1].startswith("Too many messages from this ip")
