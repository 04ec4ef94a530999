"""ProBench's retry rule: a game is asked up to 3 times, until a reply holds a `[[...]]` label.

Each attempt is its own cached judge call, so a second run asks nothing again and a reply
without a label is not handed back from the cache as if it were a new attempt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vlmscope.cache import ResponseCache
from vlmscope.judges.client import Judge
from vlmscope.messages import Request, Response, failed, user_request
from vlmscope.models.base import ProgressCallback, SyncBackend
from vlmscope.tracks.probench.judging import JUDGE_ATTEMPTS, judge_game


class ScriptedJudge(SyncBackend):
    """Replies from a script, in order; records how many calls it got."""

    def __init__(self, replies: Sequence[Response]) -> None:
        super().__init__()
        self.name = "scripted"
        self.replies = list(replies)
        self.calls = 0

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "scripted"}

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        out = []
        for _ in requests:
            out.append(self.replies[min(self.calls, len(self.replies) - 1)])
            self.calls += 1
        return out


def _game(replies: Sequence[Response], cache: ResponseCache) -> tuple[dict[str, Any], int]:
    backend = ScriptedJudge(replies)
    game = asyncio.run(judge_game(Judge(backend, cache), user_request("q"), model_first=True))
    return game, backend.calls


def test_stops_at_the_first_reply_with_a_label(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    replies = [Response("thinking..."), Response("Final: [[B>A]]"), Response("[[A>>B]]")]
    game, calls = _game(replies, cache)
    assert (game["label"], game["outcome"], game["attempts"], calls) == ("B>A", "parsed", 2, 2)
    again, calls_again = _game(replies, cache)  # a rerun reads both attempts from the cache
    assert again == game and calls_again == 0


def test_two_different_labels_stop_the_retries_and_stay_unparseable(tmp_path: Path) -> None:
    replies = [Response("[[A>B]] or rather [[B>A]]"), Response("[[A>B]]")]
    game, calls = _game(replies, ResponseCache(tmp_path / "c.sqlite"))
    assert (game["label"], game["outcome"], game["attempts"], calls) == (
        None,
        "conflicting_labels",
        1,
        1,
    )


def test_after_three_replies_without_a_label_the_last_is_kept(tmp_path: Path) -> None:
    replies = [Response("one"), Response("two"), Response("three"), Response("[[A>B]]")]
    game, calls = _game(replies, ResponseCache(tmp_path / "c.sqlite"))
    assert calls == JUDGE_ATTEMPTS == 3
    assert (game["judgment"], game["outcome"], game["attempts"]) == ("three", "no_label", 3)


def test_a_failed_call_uses_an_attempt_and_is_recorded(tmp_path: Path) -> None:
    replies = [failed("HTTP 500"), Response("[[A=B]]")]
    game, calls = _game(replies, ResponseCache(tmp_path / "c.sqlite"))
    assert (game["label"], game["attempts"], game["error"], calls) == ("A=B", 2, None, 2)
    only_failures = [failed("HTTP 500")]
    game, calls = _game(only_failures, ResponseCache(tmp_path / "d.sqlite"))
    assert (game["judgment"], game["outcome"], game["error"], calls) == (
        None,
        "no_judgment",
        "HTTP 500",
        3,
    )
