"""A synchronous backend that lets a `StopIteration` out (a `next()` on an exhausted iterator,
say) fails its request instead of hanging the run: an asyncio future cannot hold that
exception, so awaiting it in a worker thread would wait forever."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from vlmscope.messages import Response, user_request
from vlmscope.models.base import SyncBackend


class Exhausted(SyncBackend):
    """Answers from a list of replies and runs out, as a canned grader does."""

    name = "exhausted"

    def __init__(self, replies: Sequence[str]) -> None:
        super().__init__()
        self.replies = iter(replies)

    def generate(self, requests: Sequence[Any], on_done: Any = None) -> list[Response]:
        return [Response(text=next(self.replies)) for _ in requests]


def test_a_stop_iteration_fails_the_request_instead_of_hanging() -> None:
    backend = Exhausted(["only one"])

    async def two_requests() -> tuple[Response, BaseException]:
        first = await asyncio.wait_for(backend.agenerate(user_request("a")), 10)
        with pytest.raises(RuntimeError, match="Exhausted.generate raised StopIteration") as err:
            await asyncio.wait_for(backend.agenerate(user_request("b")), 10)
        return first, err.value

    first, error = asyncio.run(two_requests())
    assert first.text == "only one"
    assert isinstance(error.__cause__, StopIteration)
