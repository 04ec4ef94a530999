"""How the slots engine gets its prefills: inline, or on a worker thread while it decodes.

Inline (the default), the engine's loop prefills a group and only then decodes again: every
decode step waits for the whole prefill, host syncs included (a VLM's forward stops the host
mid-prefill: llava checks its image token count against the features), so the device decodes
nothing while a group is prefilled. `ThreadPrefill` (`overlap_prefill: true`) prefills the next
group on one worker thread, on its own CUDA stream, while the loop goes on replaying decode
steps; the loop waits only when it has nothing to decode. One group is in flight at a time,
and one more is held prefilled at most, which bounds the memory the overlap costs.

Both return an `Outcome` per group; the engine treats them the same. The worker never touches
the job queue (only the loop's thread does), and a prefilled group's keys and values are marked
as used by the loop's stream, so that the allocator does not hand their memory to the next
prefill before the loop's copies into the slots have run.
"""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import torch

from vlmscope.models.hf_jobs import JobQueue
from vlmscope.models.hf_prefill import Job, Prefilled, prefill


@dataclass
class Outcome:
    group: list[Job]
    prefilled: list[Prefilled] | None  # None when the prefill failed
    error: Exception | None
    seconds: float  # the prefill's own time, on whichever thread ran it
    waited_s: float  # how long the loop's thread was held up by it


class InlinePrefill:
    """The loop's own thread prefills each group when it needs one."""

    busy = False  # never a prefill in flight between calls

    def __init__(self, model: Any) -> None:
        self.model = model

    def next(self, source: JobQueue, wait: bool) -> Outcome | None:
        """The next group's outcome, or None when no group is ready to be taken."""
        group = source.next_group()
        if not group:
            return None
        outcome = _prefill(self.model, group)
        outcome.waited_s = outcome.seconds
        return outcome

    def prefetch(self, source: JobQueue) -> None:
        """Nothing to do ahead of time inline."""

    def quiesce(self) -> None:
        """Nothing runs beside the loop inline."""

    def held(self) -> list[Job]:
        return []


class ThreadPrefill:
    """One group at a time prefilled on a worker thread (see the module docstring)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vlmscope-prefill")
        cuda = model.device.type == "cuda"
        self._stream = torch.cuda.Stream(device=model.device) if cuda else None
        self._future: Future[Outcome] | None = None

    @property
    def busy(self) -> bool:
        """A group is in flight, or done and not yet taken."""
        return self._future is not None

    def next(self, source: JobQueue, wait: bool) -> Outcome | None:
        """The in-flight group's outcome once it is done (waiting for it only if `wait`),
        after which the next group is started; None while nothing is done."""
        if self._future is None:
            self.prefetch(source)
            if self._future is None:
                return None
        if not (wait or self._future.done()):
            return None
        started = time.perf_counter()
        outcome = self._future.result()
        outcome.waited_s = time.perf_counter() - started
        self._future = None
        self._hand_over(outcome)
        self.prefetch(source)
        return outcome

    def prefetch(self, source: JobQueue) -> None:
        """Start the next group if none is in flight and one is ready to be taken."""
        if self._future is None and (group := source.next_group()):
            self._future = self._pool.submit(self._work, group)

    def quiesce(self) -> None:
        """Wait for the in-flight prefill (its outcome is kept): a CUDA graph is about to be
        captured, and nothing else should run on the device meanwhile."""
        if self._future is not None:
            self._future.exception()

    def held(self) -> list[Job]:
        """The jobs of the group in flight, given back unanswered (the loop failed)."""
        if self._future is None:
            return []
        group = self._future.result().group
        self._future = None
        return group

    def _work(self, group: list[Job]) -> Outcome:
        stream = torch.cuda.stream(self._stream) if self._stream else contextlib.nullcontext()
        with stream:
            return _prefill(self.model, group)

    def _hand_over(self, outcome: Outcome) -> None:
        """Mark the group's keys and values as used by the loop's stream (see the module
        docstring); their prefill ended in a host sync, so they are complete already."""
        if self._stream is None or outcome.prefilled is None:
            return
        loop_stream = torch.cuda.current_stream(self.model.device)
        for entry in outcome.prefilled:
            for key, value in entry.layer_kv:
                key.record_stream(loop_stream)
                value.record_stream(loop_stream)


def _prefill(model: Any, group: list[Job]) -> Outcome:
    started = time.perf_counter()
    try:
        prefilled = prefill(model, group)
    except Exception as err:
        return Outcome(group, None, err, time.perf_counter() - started, 0.0)
    return Outcome(group, prefilled, None, time.perf_counter() - started, 0.0)
