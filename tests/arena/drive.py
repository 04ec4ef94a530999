"""Driving an arena from a test: a whole message answered, the last update returned."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from vlmscope.arena.service import Arena, Update


def ask(
    arena: Arena,
    text: str,
    *,
    session: str = "session-1",
    ip: str = "10.0.0.1",
    battle_id: str | None = None,
    images: Sequence[bytes] = (),
) -> list[Update]:
    """Every update of one message, in order (the last one is `done`)."""

    battle = arena.open_message(session, ip, battle_id, text, images)

    async def collect() -> list[Update]:
        return [u async for u in arena.answer(battle)]

    return asyncio.run(collect())
