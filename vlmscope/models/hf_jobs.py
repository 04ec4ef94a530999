"""The slots engine's queue of jobs: retries first, then the caller's source, in prefill groups."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from vlmscope.models.hf_prefill import Job


class JobQueue:
    """The engine's queue: retries first, then `source`, handed out in prefill groups (the
    consecutive jobs that share one processor output). `source` yields None while the next
    group is not encoded yet."""

    def __init__(self, source: Iterator[Job | None]) -> None:
        self.source = source
        self.retries: deque[Job] = deque()
        self.exhausted = False
        self._peeked: Job | None = None

    def retry(self, jobs: list[Job]) -> None:
        self.retries.extendleft(reversed(jobs))

    def held(self) -> list[Job]:
        """Jobs taken from `source` but not handed out yet."""
        return [*self.retries, *([self._peeked] if self._peeked is not None else [])]

    def next_group(self) -> list[Job]:
        """The next group, or [] if none is ready now (`exhausted` says whether one will be)."""
        if self.retries:
            return [self.retries.popleft()]
        first = self._take()
        if first is None:
            return []
        group = [first]
        while (following := self._take()) is not None:
            if following.inputs is not first.inputs:
                self._peeked = following
                break
            group.append(following)
        return group

    def _take(self) -> Job | None:
        job, self._peeked = self._peeked, None
        if job is not None or self.exhausted:
            return job
        taken = next(self.source, _END)
        if taken is _END:
            self.exhausted = True
            return None
        return taken  # type: ignore[return-value]


_END = object()
