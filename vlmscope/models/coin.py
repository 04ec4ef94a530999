"""The coin backend: a reply picked by a hash of the request (see `CoinModelConfig`).

It exists so that a judged track can run end to end offline, in the demo and in tests, with
verdicts that parse; the summary names the judge, so nobody mistakes its board for a result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from vlmscope.config import CoinModelConfig
from vlmscope.messages import Request, Response
from vlmscope.models.base import ProgressCallback, SyncBackend


class CoinBackend(SyncBackend):
    def __init__(self, config: CoinModelConfig) -> None:
        super().__init__()
        self.name = config.name
        self.config = config

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "coin", "labels": list(self.config.labels), "reply": self.config.reply}

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        responses = [self._reply(r) for r in requests]
        if on_done is not None:
            on_done(responses)
        return responses

    def _reply(self, request: Request) -> Response:
        digest = hashlib.sha256(request.content_hash().encode("ascii")).digest()
        label = self.config.labels[int.from_bytes(digest[:8], "big") % len(self.config.labels)]
        return Response(text=self.config.reply.replace("{label}", label))
