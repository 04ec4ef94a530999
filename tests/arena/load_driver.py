"""Many anonymous sessions battling and voting at once, in one process: the load test's client.

    python -m tests.arena.load_driver CONFIG SESSIONS ROUNDS PREFIX [RETRY_FILE]

Each of SESSIONS sessions (named PREFIX-<n>) runs ROUNDS battles one after another, all
sessions concurrently: ask (both answers stream in), then vote. It prints `SHOWN session
battle winner` (tab-separated) once a battle is answered and the vote is about to be sent, and `ACK session
battle winner` once the vote came back, each line flushed: the test reads what was
acknowledged even when it kills this process mid-load. With RETRY_FILE (the output of a killed
run), it first sends again every vote that was shown but not acknowledged there, as a client
retrying after a lost reply would.
"""

from __future__ import annotations

import asyncio
import sys
import zlib
from pathlib import Path

from vlmscope.arena.battles import VOTES
from vlmscope.arena.build import build_arena
from vlmscope.arena.config import load_arena_config
from vlmscope.arena.service import Arena

WINNERS = tuple(VOTES.values())


def say(*fields: str) -> None:
    """One tab-separated line, flushed (a winner may hold a space: "tie (bothbad)")."""
    print(*fields, sep="\t", flush=True)


async def battle(arena: Arena, session: str, round_number: int) -> None:
    text = f"{session} question {round_number}"
    opened = await asyncio.to_thread(arena.open_message, session, "10.0.0.1", None, text)
    async for _ in arena.answer(opened):
        pass
    battle_id = opened.battle_id
    winner = WINNERS[(zlib.crc32(session.encode()) + round_number) % len(WINNERS)]
    say("SHOWN", session, battle_id, winner)
    reveal = await asyncio.to_thread(arena.vote, session, "10.0.0.1", battle_id, winner)
    say("ACK", session, battle_id, reveal.winner)


async def session_loop(arena: Arena, session: str, rounds: int) -> None:
    for round_number in range(rounds):
        await battle(arena, session, round_number)


async def retry(arena: Arena, log: Path) -> None:
    shown: dict[str, tuple[str, str]] = {}
    acked: set[str] = set()
    for line in log.read_text().splitlines():
        fields = line.split("\t")
        if len(fields) != 4:
            continue  # a line cut short by the kill
        kind, session, battle_id, winner = fields
        if kind == "SHOWN":
            shown[battle_id] = (session, winner)
        elif kind == "ACK":
            acked.add(battle_id)
    for battle_id, (session, winner) in shown.items():
        if battle_id not in acked:
            reveal = await asyncio.to_thread(arena.vote, session, "10.0.0.1", battle_id, winner)
            say("ACK", session, battle_id, reveal.winner)


async def main(
    config: str, sessions: int, rounds: int, prefix: str, retry_file: str | None
) -> None:
    arena = build_arena(load_arena_config(config))
    if retry_file:
        await retry(arena, Path(retry_file))
    await asyncio.gather(*(session_loop(arena, f"{prefix}-{n}", rounds) for n in range(sessions)))
    arena.store.close()


if __name__ == "__main__":
    config, sessions, rounds, prefix = sys.argv[1:5]
    asyncio.run(main(config, int(sessions), int(rounds), prefix, next(iter(sys.argv[5:]), None)))
