"""Phase 1 of a run, generate: every model answers every track, committed to the cache as it goes.

Every process runs this phase. Each computes the same sample list and cache keys, takes its
share of the requests not yet answered, and commits each chunk of answers to the shared cache
before sending the next, so a killed run loses at most the chunk in flight. Multi-turn samples
are asked in rounds, one turn per conversation per round.

It lives apart from scoring because it is the only phase that is split across processes and
talks to the models under evaluation; scoring (`vlmscope.runner.score`) takes their answers
from the cache. `TrackReport` is started here and completed by scoring, so it lives here too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tqdm.auto import tqdm

from vlmscope.cache import ResponseCache
from vlmscope.config import ModelConfig
from vlmscope.messages import Request, Response
from vlmscope.models.base import Backend
from vlmscope.models.registry import build_backend, commit_every
from vlmscope.runner.answer_keys import AnswerKeys, oracle_references
from vlmscope.runner.budget import Budget, Ticket
from vlmscope.runner.budget_run import stopped_together
from vlmscope.runner.distributed import ProcessGroup, local_device
from vlmscope.runner.plan import PlannedTrack
from vlmscope.tracks.base import Sample, Track
from vlmscope.tracks.conversation import turn_count, walk_conversations


@dataclass
class TrackReport:
    """What one (model, track) run did; one line of the end-of-run table."""

    model: str
    track: str
    total: int = 0
    """Requests: a sample asks once per turn (cached + generated + failed)."""
    cached: int = 0
    generated: int = 0
    failed: int = 0
    failure_causes: dict[str, int] = field(default_factory=dict)
    """Each error of the failed requests with its count (`vlmscope.runner.failure_causes`)."""
    by_rank: dict[int, int] = field(default_factory=dict)
    batching: list[str] = field(default_factory=list)  # how the model's batching fell back
    summary: dict[str, Any] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    result_dir: Path | None = None
    seconds: float = 0.0
    started_at: str = ""
    asked_keys: set[str] = field(default_factory=set, repr=False)
    """Cache keys of the requests this run sent (the ledger tells them from cached answers)."""
    samples: int = 0
    """Samples (the summary's `n_samples`, the Space's `Samples`); `total` counts requests."""
    ledger: dict[str, Any] = field(default_factory=dict)
    """What the result cost and what this run spent on it (`vlmscope.runner.ledger`)."""


def generate_model(
    model_config: ModelConfig,
    planned: Sequence[PlannedTrack],
    cache: ResponseCache,
    group: ProcessGroup,
    budget: Budget | None = None,
) -> list[TrackReport]:
    """Every track's requests of one model; the backend is loaded once for all of them. A
    `budget` admits requests before they are sent (`vlmscope.runner.budget`)."""
    samples_by_track = [p.track.samples(model_config) for p in planned]
    references = oracle_references(model_config, samples_by_track)
    backend = build_backend(model_config, device=local_device(), references=references)
    keys_of = AnswerKeys(backend.identity, references)
    reports = []
    for plan, samples in zip(planned, samples_by_track, strict=True):
        reports.append(
            _generate_track(
                model_config, plan.track, samples, backend, keys_of, cache, group, budget
            )
        )
    del backend
    return reports


def _generate_track(
    model_config: ModelConfig,
    track: Track,
    samples: Sequence[Sample],
    backend: Backend,
    keys_of: AnswerKeys,
    cache: ResponseCache,
    group: ProcessGroup,
    budget: Budget | None = None,
) -> TrackReport:
    """Ask every turn of every sample that is not answered yet, in rounds.

    A round asks each conversation's next unanswered turn, so single-turn samples take one
    round and a conversation of k turns k rounds. A failure cached by an earlier run is asked
    again once; a failure from this run stands (and ends its conversation). When the budget
    refuses a request, each process commits what it has and the run stops (`BudgetReached`)
    after the round, all processes together.
    """
    started = time.monotonic()
    asked: set[str] = set()

    def answered(requests: list[Request]) -> list[Response | None]:
        keys = [keys_of(r) for r in requests]
        stored = cache.get_many(keys)
        return [
            found if found is not None and (found.ok or key in asked) else None
            for key, found in ((key, stored.get(key)) for key in keys)
        ]

    report = TrackReport(
        model=model_config.name,
        track=track.name,
        total=sum(turn_count(s) for s in samples),
        started_at=utc_now(),
        samples=len(samples),
    )
    conversations = walk_conversations(samples, answered)
    report.cached = sum(len(c.responses) for c in conversations)
    multi_turn = any(s.followups for s in samples)
    bar = tqdm(
        total=report.total,
        initial=report.cached,
        desc=f"{report.model} / {report.track}",
        unit="req",
        disable=not group.is_main,
        dynamic_ncols=True,
    )
    with bar:
        while requests := [c.next_request for c in conversations if c.next_request is not None]:
            keys = [keys_of(r) for r in requests]
            pending = sorted(range(len(requests)), key=lambda i: _size_hint(requests[i]))
            # Every process must split the same pending list: none may commit an answer before
            # all have read the cache, or a slower process would skip work a faster one never took.
            group.barrier()
            mine = group.share(pending)
            handled = _answer(
                mine, requests, keys, backend, cache, commit_every(model_config), group, bar,
                budget,
            )  # fmt: skip
            for rank, n in group.gather([(group.rank, handled)]):
                report.by_rank[rank] = report.by_rank.get(rank, 0) + n
            asked.update(keys)
            group.barrier()
            stop = stopped_together(budget, group)
            if stop is not None:
                raise stop
            if not multi_turn:  # every sample answered in one round: nothing left to find
                break
            conversations = walk_conversations(samples, answered)
    report.generated = sum(report.by_rank.values())
    report.asked_keys = asked
    notes = backend.batching_notes if isinstance(backend, SortsBatches) else []
    report.batching = list(dict.fromkeys(group.gather(notes)))  # every process's, once each
    report.seconds = time.monotonic() - started
    return report


@runtime_checkable
class SortsBatches(Protocol):
    """A local model that forms its own batches: it sorts requests by prompt length over a
    window of several batches and hands back each batch's answers, with their indices, before
    it forms the next (`HFBackend`)."""

    def generate_batches(
        self,
        requests: Sequence[Request],
        on_batch: Callable[[Sequence[int], Sequence[Response]], None],
    ) -> None: ...

    @property
    def batching_notes(self) -> list[str]: ...


def _answer(
    mine: list[int],
    requests: Sequence[Request],
    keys: Sequence[str],
    backend: Backend,
    cache: ResponseCache,
    chunk_size: int,
    group: ProcessGroup,
    bar: tqdm,
    budget: Budget | None = None,
) -> int:
    """Answer this process's share, committing answers as they arrive.

    Backends hand finished answers to `on_done` in request order (a local model after each
    batch, an API as soon as the next ones in order are in), and each hand-over is committed
    before the backend goes on; what a backend never handed over is committed when it returns.
    A backend that sorts its own batches gets the whole share at once, so it can sort across
    many batches, and hands back each batch (in any order) before it runs the next: a killed
    run still loses at most the batch in flight. A `budget` admits each call's requests first;
    what it refuses is not sent.
    """
    failed = 0
    tickets: dict[int, Ticket] = {}

    def admitted(indices: list[int]) -> list[int]:
        if budget is None:
            return indices
        granted = budget.admit(backend.name, [requests[i] for i in indices])
        tickets.update(zip(indices, granted, strict=False))
        return indices[: len(granted)]

    def commit(indices: Sequence[int], responses: Sequence[Response]) -> None:
        nonlocal failed
        cache.put_many(
            {keys[i]: r for i, r in zip(indices, responses, strict=True)}, backend=backend.name
        )
        if budget is not None:
            for i, response in zip(indices, responses, strict=True):
                budget.settle(tickets.pop(i), response)
        failed += sum(not r.ok for r in responses)
        bar.update(len(responses) * group.world_size)
        bar.set_postfix(failed=failed, refresh=False)

    if isinstance(backend, SortsBatches):
        mine = admitted(mine)
        backend.generate_batches(
            [requests[i] for i in mine],
            lambda positions, responses: commit([mine[p] for p in positions], responses),
        )
        return len(mine)
    handled = 0
    for start in range(0, len(mine), chunk_size):
        chunk = admitted(mine[start : start + chunk_size])
        if not chunk:
            break
        committed = 0

        def in_order(responses: Sequence[Response], chunk: list[int] = chunk) -> None:
            nonlocal committed
            commit(chunk[committed : committed + len(responses)], responses)
            committed += len(responses)

        responses = backend.generate([requests[i] for i in chunk], on_done=in_order)
        if committed < len(chunk):
            in_order(responses[committed:])
        handled += len(chunk)
    return handled


def _size_hint(request: Request) -> int:
    """A cheap stand-in for prompt length, so that batches hold requests of similar length."""
    text = sum(len(p.text) for t in request.turns for p in t.parts if hasattr(p, "text"))
    return text + 256 * len(request.images)


def utc_now() -> str:
    """The time stamp of a result's start and finish (UTC, to the second)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
