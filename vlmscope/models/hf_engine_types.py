"""What the slots engine is set with and what it reports: its settings, its answers, its
counters, and the failure that hands unanswered jobs back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vlmscope.models.hf_prefill import Job


class DecodeFailed(Exception):
    """A decode step failed (out of memory, say); the requests not yet answered are listed."""

    def __init__(self, unanswered: list[Job], error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.unanswered = unanswered
        self.error = error


@dataclass
class Done:
    key: int
    tokens: list[int]
    seconds: float  # from its prefill to its last token


Finished = Callable[[list[Done]], None]
Failed = Callable[[Job, Exception], "Job | None"]  # a retry (fewer images), or None


@dataclass
class Stats:
    """Where the engine's time went (host clock; both phases end in a device sync)."""

    prefills: int = 0
    prefill_s: float = 0.0  # the prefills' own time (on a worker thread with overlap_prefill)
    prefill_wait_s: float = 0.0  # how long decoding waited for prefills (all of them inline)
    steps: int = 0
    step_s: float = 0.0
    busy_slots: int = 0  # summed over steps: how full the slots were
    shifts: int = 0
    grows: int = 0
    input_wait_s: float = 0.0  # nothing to decode, the next inputs not encoded yet
    encode_s: float = 0.0  # host time encoding requests, on worker threads (the backend's)
    place_s: float = 0.0  # placing prefilled requests: shifts, cache growth, copies into slots
    captures: int = 0  # decode steps captured as CUDA graphs (each cache size needs its own)
    capture_s: float = 0.0
    cache_bytes_read: int = 0  # summed over steps: the slot keys and values attention read


@dataclass
class Settings:
    slots: int
    invariant: bool = False
    graphs: bool = True  # on CUDA, when not invariant
    invariant_rows: int = 32  # row-block height of batch-invariant products
    blocks: bool = False  # attention reads each slot's own column blocks only (`hf_blocks`)
    overlap: bool = False  # prefill on a worker thread while decoding (`hf_prefillers`)
