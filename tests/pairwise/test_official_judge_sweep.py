"""Judge messages and judgments recorded from arena-hard-auto's own `judgment()` code.

Each case of `official_sweep/judge_messages.json` ran the official v0.1 or v2 judging on one
question and two answers with the chat-completion call replaced by canned replies; here the
same replies answer our judge, and every call's messages (system prompt, user prompt byte for
byte, the assistant turn and the nudge), the number of calls, each game's judgment text and its
label must be the official ones. See `official_sweep/README.md`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from vlmscope.cache import ResponseCache
from vlmscope.judges.client import Judge
from vlmscope.judges.pairwise import judge_pair, load_pairwise_template
from vlmscope.messages import Request, Response, user_request
from vlmscope.models.base import SyncBackend
from vlmscope.models.openai_payload import chat_body
from vlmscope.tracks.pairwise import reference_judging

CASES_FILE = Path(__file__).parent / "official_sweep" / "judge_messages.json"
RECORDED = json.loads(CASES_FILE.read_text(encoding="utf-8"))
CASES = RECORDED["cases"]
TEMPLATE = load_pairwise_template("visionarena_bench_judge.txt")
PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


class RecordedJudge(SyncBackend):
    """Answers a request with the reply the official code got for the same prompt and attempt
    (a reply is a function of the messages, so a cached request gets the same one)."""

    name = "recorded"

    def __init__(self, replies: dict[tuple[str, int], str]) -> None:
        super().__init__()
        self.identity = {"backend": "recorded"}
        self.replies = replies

    def generate(self, requests: Any, on_done: Any = None) -> list[Response]:
        return [Response(self.replies[_key(r)]) for r in requests]


def _key(request: Request) -> tuple[str, int]:
    return request.turns[0].text, sum(t.role == "assistant" for t in request.turns)


def _run(case: dict[str, Any], tmp_path: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    replies = {
        (call["messages"][0]["content"], sum(m["role"] == "assistant" for m in call["messages"])): (
            call["reply"]
        )
        for call in case["calls"]
    }
    judge = Judge(RecordedJudge(replies), ResponseCache(tmp_path / "judge.sqlite"))
    asked: list[Request] = []
    ask = judge.ask

    async def recording(request: Request, **kwargs: Any) -> Response:
        asked.append(request)
        return await ask(request, **kwargs)

    judge.ask = recording  # type: ignore[method-assign]
    judging = reference_judging(case["reference"])
    question = user_request(*([PNG] * case["images"]), case["question"])
    games = asyncio.run(
        judge_pair(
            judge,
            TEMPLATE,
            question=question,
            model_answer=case["model_answer"],
            baseline_answer=case["baseline_answer"],
            rules=judging.rules,
            settings=judging.settings,
            attempts=judging.attempts,
        )
    )
    return list(games), [chat_body(r, "judge", None) for r in asked]


def test_cases_cover_both_references_and_images():
    assert {c["reference"] for c in CASES} == {"arena-hard-v0.1", "arena-hard-v2"}
    assert {c["images"] for c in CASES} == {0, 1, 2}
    assert any(len(c["calls"]) == 4 for c in CASES)  # both games nudged


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_messages_and_judgments_are_the_official_ones(case, tmp_path):
    games, bodies = _run(case, tmp_path)
    assert len(bodies) == len(case["calls"]), "number of judge calls"
    for number, (body, call) in enumerate(zip(bodies, case["calls"], strict=True)):
        system, *messages = body["messages"]
        assert system == {
            "role": "system",
            "content": RECORDED["system_prompts"][call["system_prompt"]],
        }
        first = messages[0]["content"]
        if case["images"]:  # the official code is text-only; ours puts the images first
            kinds = [p["type"] for p in first]
            assert kinds == ["image_url"] * case["images"] + ["text"], f"call {number}"
            messages[0] = {"role": "user", "content": first[-1]["text"]}
        assert messages == call["messages"], f"call {number}"
        assert body["temperature"] == call["temperature"]
        assert body["max_tokens"] == call["max_tokens"]
    for game, official in zip(games, case["games"], strict=True):
        if official is None:  # v2: the call returned nothing
            assert game.judgment is None and game.verdict.label is None
            continue
        assert game.judgment == official["judgment"]
        assert game.verdict.label == official["label"]
    assert [g.model_first for g in games] == [False, True]
