"""Shared pieces of the arena tests: two streaming stub models, images, a config and an arena."""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.arena.sse_stub import SSEStub, last_user_text
from vlmscope.arena.config import ArenaConfig
from vlmscope.arena.contestants import build_contestant
from vlmscope.arena.moderation import load_hook
from vlmscope.arena.service import Arena
from vlmscope.arena.vote_store import VoteStore

# Names no page asset contains by chance: the browser tests look for them in every response.
NAMES = ("contender-zeta-9b", "contender-omega-2b")


def png(colour: str = "red", size: tuple[int, int] = (12, 10)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def zeta_reply(messages: list[dict[str, Any]]) -> str:
    return f"zeta answer {len(messages)}: {last_user_text(messages)}"


def omega_reply(messages: list[dict[str, Any]]) -> str:
    return f"omega answer {len(messages)} with **bold** and a list:\n- item"


@pytest.fixture(scope="module")
def stubs() -> Iterator[tuple[SSEStub, SSEStub]]:
    with SSEStub(zeta_reply, chunk_delay_s=0.005) as zeta, SSEStub(omega_reply) as omega:
        yield zeta, omega


def config_dict(stubs: tuple[SSEStub, SSEStub], store: Path, **overrides: Any) -> dict[str, Any]:
    return {
        "contestants": [
            {"backend": "openai", "name": NAMES[0], "base_url": stubs[0].base_url, "model": "m"},
            {"backend": "openai", "name": NAMES[1], "base_url": stubs[1].base_url, "model": "m"},
        ],
        "store": {"path": str(store)},
        "board": {"bootstrap_rounds": 10},
        **overrides,
    }


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


MakeArena = Callable[..., Arena]


@pytest.fixture
def make_arena(stubs: tuple[SSEStub, SSEStub], tmp_path: Path) -> Iterator[MakeArena]:
    """`make_arena(**config_overrides)`: an arena over the stubs, a fresh store, a hand clock."""
    opened: list[VoteStore] = []

    def make(*, clock: Clock | None = None, seed: int = 0, **overrides: Any) -> Arena:
        config = ArenaConfig.model_validate(
            config_dict(stubs, tmp_path / f"store{len(opened)}.sqlite", **overrides)
        )
        store = VoteStore(config.store.path)
        opened.append(store)
        contestants = {m.name: build_contestant(m, config.sampling) for m in config.contestants}  # type: ignore[arg-type]
        return Arena(
            config, store, contestants, moderation=load_hook(config.moderation),
            clock=clock or Clock(), rng=random.Random(seed), secret=store.secret(),
        )  # fmt: skip

    yield make
    for store in opened:
        store.close()


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The larger load test (`slow`) runs only when `-m` names it."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="the larger load test; run it with -m slow tests/arena")
    for item in items:
        if item.get_closest_marker("slow") is not None and HERE in Path(item.path).parents:
            item.add_marker(skip)
