"""The model calls behind one sample's answer, as its details and the ledger record them.

A sample is one call per turn it reached (a conversation asks each turn with the model's own
earlier answers, `vlmscope.tracks.conversation`); each is `cached` unless this run asked it.
The judge calls come from the judge client's notes (`vlmscope.judges.call_log`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from vlmscope.judges.call_log import GENERATE, Call
from vlmscope.messages import Request, Response
from vlmscope.tracks.base import Sample


def turn_requests(sample: Sample, responses: Sequence[Response]) -> list[Request]:
    """The request of each turn the sample reached, given the answers to the turns before."""
    requests = [sample.request]
    for turn, response in enumerate(responses[:-1]):
        requests.append(requests[-1].continued(response.text, sample.followups[turn].text))
    return requests


def model_calls(
    model: str,
    sample: Sample,
    responses: Sequence[Response],
    key_of: Callable[[Request], str],
    asked: Collection[str],
) -> list[Call]:
    """One `generate` call per turn answered; `asked` holds the cache keys this run sent."""
    return [
        Call.of(GENERATE, model, response, cached=key_of(request) not in asked)
        for request, response in zip(turn_requests(sample, responses), responses, strict=True)
    ]
