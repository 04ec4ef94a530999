"""The oracle backend: answers every request with its reference answer.

A sanity check of the scoring path (MEGA-Bench paper Sec. 3.2): if the oracle does not get full
marks on a rule-scored task, the parser, metric or reference is wrong, not the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlmscope.messages import Request, Response, Status
from vlmscope.models.base import ProgressCallback, SyncBackend


class OracleBackend(SyncBackend):
    def __init__(self, name: str = "oracle") -> None:
        super().__init__()
        self.name = name

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "oracle"}

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        responses = [_answer(r) for r in requests]
        if on_done is not None:
            on_done(responses)
        return responses


def _answer(request: Request) -> Response:
    if request.oracle_answer is None:
        return Response(
            text="", status=Status.REQUEST_FAILED, error="no reference answer for the oracle"
        )
    return Response(text=request.oracle_answer)
