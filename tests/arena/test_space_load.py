"""Load through the Space itself: 50 sessions at once, each asking and voting over Gradio's
queue API as the page does (`queue/join`, then the session's event stream), against two
streaming stub models. The Space is killed (SIGKILL) once half the votes are acknowledged and
started again on the same store: every acknowledged vote is there with its winner, the new
Space serves 50 more sessions, and no vote is stored twice. Bounded: a fixed number of battles,
each phase under a time limit."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.arena.conftest import NAMES, config_dict, zeta_reply
from tests.arena.space import serve_arena, serve_arena_process
from tests.arena.sse_stub import SSEStub
from vlmscope.arena.vote_store import VoteStore

SESSIONS = 50
LIMIT_S = 45.0
LIMITS = {"asks_per_ip": 10_000, "votes_per_ip": 10_000, "concurrent_answers": 64}


@pytest.fixture
def stubs() -> Iterator[tuple[SSEStub, SSEStub]]:
    with (
        SSEStub(zeta_reply, chunk_delay_s=0.02) as zeta,
        SSEStub(lambda m: "omega answers in a few words", chunk_delay_s=0.02) as omega,
    ):
        yield zeta, omega


class Client:
    """One session of the page, speaking Gradio's queue protocol."""

    def __init__(self, http: httpx.AsyncClient, config: dict[str, Any], session: str) -> None:
        self.http = http
        self.session = session
        self.events = {d["api_name"]: d for d in config["dependencies"] if d.get("api_name")}

    async def call(self, api_name: str, data: list[Any]) -> list[Any]:
        event = self.events[api_name]
        joined = await self.http.post(
            "gradio_api/queue/join",
            json={"data": data, "fn_index": event["id"], "session_hash": self.session,
                  "event_data": None, "trigger_id": event["targets"][0][0]},
        )  # fmt: skip
        joined.raise_for_status()
        event_id = joined.json()["event_id"]
        params = {"session_hash": self.session}
        async with self.http.stream("GET", "gradio_api/queue/data", params=params) as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("event_id") == event_id and message["msg"] == "process_completed":
                    assert message.get("success", True), message
                    return list(message["output"]["data"])
        raise AssertionError(f"{api_name}: the stream ended without a result")


async def one_session(
    http: httpx.AsyncClient, config: dict[str, Any], session: str, acks: list[tuple[str, str]]
) -> None:
    client = Client(http, config, session)
    asked = await client.call("ask", [{"text": f"{session}: what is it?", "files": []}, None])
    assert "zeta answer" in asked[1] + asked[2]
    assert not any(name in json.dumps(asked) for name in NAMES)
    voted = await client.call("vote_a", [None])
    note = voted[-1]
    assert "was" in note, note
    acks.append((session, note))


async def load(url: str, prefix: str, acks: list[tuple[str, str]]) -> None:
    limits = httpx.Limits(max_connections=4 * SESSIONS)
    async with httpx.AsyncClient(base_url=url, timeout=LIMIT_S, limits=limits) as http:
        config = (await http.get("config")).json()
        await asyncio.gather(
            *(one_session(http, config, f"{prefix}{n:03d}", acks) for n in range(SESSIONS)),
            return_exceptions=True,
        )


def _prompt_session(vote: dict[str, Any]) -> str:
    return str(vote["conversation_a"][0]["content"]).split(":")[0]


def test_fifty_sessions_through_the_space_and_a_killed_space(
    stubs: tuple[SSEStub, SSEStub], tmp_path: Path
) -> None:
    store_path = tmp_path / "battles.sqlite"
    config = tmp_path / "arena.yaml"
    config.write_text(yaml.safe_dump(config_dict(stubs, store_path, limits=LIMITS)))

    # 1. fifty sessions; the Space is killed once half of them have their vote acknowledged
    acked_first: list[tuple[str, str]] = []
    with serve_arena_process(config, tmp_path / "first") as (url, space):

        async def load_then_kill() -> None:
            task = asyncio.create_task(load(url, "first", acked_first))
            started = time.monotonic()
            while len(acked_first) < SESSIONS // 2:
                assert time.monotonic() - started < LIMIT_S, "the load ran past its time limit"
                await asyncio.sleep(0.01)
            space.send_signal(signal.SIGKILL)
            await asyncio.wait_for(task, LIMIT_S)

        asyncio.run(load_then_kill())
    assert SESSIONS // 2 <= len(acked_first) < SESSIONS  # killed mid-load
    # the sessions really overlapped: one at a time would stream 1 answer per model; a quiet
    # machine streams 10 or more at once, one whose cores are shared with other work about 8
    assert min(s.max_in_flight for s in stubs) >= 5
    with_store = VoteStore(store_path)
    stored = [v.record for v in with_store.votes()]
    with_store.close()
    by_session = {_prompt_session(v): v for v in stored}
    assert len(by_session) == len(stored)
    for session, note in acked_first:  # nothing acknowledged is lost, and it is what was shown
        vote = by_session[session]
        revealed = note.replace("\\", "")
        assert f"**Model A** was {vote['model_a']};" in revealed
        assert f"**Model B** was {vote['model_b']}." in revealed

    # 2. a new Space on the same store serves fifty more sessions
    acked_second: list[tuple[str, str]] = []
    started = time.monotonic()
    with serve_arena(config, tmp_path / "second") as url:
        asyncio.run(load(url, "second", acked_second))
    assert len(acked_second) == SESSIONS
    assert time.monotonic() - started < LIMIT_S

    with_store = VoteStore(store_path)
    votes = [v.record for v in with_store.votes()]
    with_store.close()
    assert len(votes) == len(stored) + SESSIONS  # every vote exactly once
    assert len({v["question_id"] for v in votes}) == len(votes)
    assert len({_prompt_session(v) for v in votes}) == len(votes)
    assert all(v["winner"] == "model_a" for v in votes)
