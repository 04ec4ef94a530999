"""Multi-turn samples: each turn is its own cached request, built from the model's own answers.

A sample with `followups` is a conversation. Turn 1 is `sample.request`; turn k+1 is turn k's
request, the model's answer to it, then the k-th follow-up text (`Request.continued`). Every turn
is asked and cached like any request, so a killed run resumes at the first turn not yet answered
and nothing before it is asked again. A failed turn ends the conversation there (the answers so
far are kept, as the official ProBench answer script keeps them).

`walk_conversations` is the one walk, used by the runner to find what to ask next and what to
score, and by tracks to read every turn's answer. It advances all samples turn by turn so that a
lookup can fetch one turn of every conversation at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vlmscope.messages import Request, Response
from vlmscope.tracks.base import Sample

Lookup = Callable[[list[Request]], list["Response | None"]]
"""Answers to a list of requests, None where a request has no (usable) answer yet."""


@dataclass(frozen=True)
class Conversation:
    """How far one sample's conversation got: the answers of its turns so far, in order (the
    last may be a failure), and the turn to ask next (None when complete or ended by a failure)."""

    responses: tuple[Response, ...]
    next_request: Request | None

    @property
    def final(self) -> Response | None:
        """The answer that stands for the sample: the last turn reached."""
        return self.responses[-1] if self.responses else None


def walk_conversations(samples: Sequence[Sample], lookup: Lookup) -> list[Conversation]:
    """Follow each sample's turns through `lookup` until a turn has no answer or all do."""
    requests = [s.request for s in samples]
    answers: list[list[Response]] = [[] for _ in samples]
    pending: list[Request | None] = [None] * len(samples)
    active = list(range(len(samples)))
    while active:
        found = lookup([requests[i] for i in active])
        still = []
        for i, response in zip(active, found, strict=True):
            if response is None:
                pending[i] = requests[i]
                continue
            answers[i].append(response)
            turn = len(answers[i]) - 1
            followups = samples[i].followups
            if response.ok and turn < len(followups):
                requests[i] = requests[i].continued(response.text, followups[turn].text)
                still.append(i)
        active = still
    return [Conversation(tuple(a), p) for a, p in zip(answers, pending, strict=True)]


def reference_turns(sample: Sample) -> list[tuple[Request, str]]:
    """Each turn's request with its reference answer, as a model that gives the references would
    be asked them (what the oracle backend needs); stops at the first turn without one."""
    turns: list[tuple[Request, str]] = []
    request, reference = sample.request, sample.reference
    for followup in sample.followups:
        if reference is None:
            return turns
        turns.append((request, reference))
        request, reference = request.continued(reference, followup.text), followup.reference
    if reference is not None:
        turns.append((request, reference))
    return turns


def turn_count(sample: Sample) -> int:
    return 1 + len(sample.followups)
