"""The oracle backend: answers every request with its sample's reference answer.

A sanity check of the scoring path (MEGA-Bench paper Sec. 3.2): if the oracle does not get full
marks on a rule-scored task, the parser, metric or reference is wrong, not the model. Requests
carry no answers; the runner hands the oracle the references of the samples it will be asked
about (`Sample.reference`), keyed by request hash.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.messages import Request, Response, Status
from vlmscope.models.base import ProgressCallback, SyncBackend


class OracleBackend(SyncBackend):
    def __init__(self, name: str = "oracle", references: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.name = name
        self.references = dict(references or {})

    @property
    def identity(self) -> dict[str, Any]:
        return {"backend": "oracle"}

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        responses = [self._answer(r) for r in requests]
        if on_done is not None:
            on_done(responses)
        return responses

    def _answer(self, request: Request) -> Response:
        reference = self.references.get(request.content_hash())
        if reference is None:
            return Response(
                text="", status=Status.REQUEST_FAILED, error="no reference answer for the oracle"
            )
        return Response(text=reference)
