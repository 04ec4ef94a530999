"""Data parallelism: which share of the pending requests this process handles.

`accelerate launch` and `torchrun` start N copies of the same program; each asks accelerate for
its rank and takes its share. On a machine without CUDA, accelerate must be told to use the CPU,
or every process believes it is rank 0 of 1 and all of them do all the work.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class ProcessGroup:
    rank: int
    world_size: int
    _state: Any = None

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def share(self, items: Sequence[T]) -> list[T]:
        """Every world_size-th item from this rank on: shares differ in size by at most one, and
        when the items are sorted by length every process gets a similar mix of lengths."""
        return list(items[self.rank :: self.world_size])

    def gather(self, obj: list[Any]) -> list[Any]:
        """Concatenate every process's list, in rank order (single process: unchanged)."""
        if self.world_size == 1:
            return obj
        from accelerate.utils import gather_object

        return list(gather_object(obj))

    def barrier(self) -> None:
        if self.world_size > 1:
            self._state.wait_for_everyone()

    def close(self) -> None:
        if self.world_size > 1:
            self._state.destroy_process_group()


def launched_in_parallel() -> bool:
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def process_group() -> ProcessGroup:
    """The process group this program was launched in (a group of one under plain python)."""
    if not launched_in_parallel():
        return ProcessGroup(rank=0, world_size=1)
    import torch
    from accelerate import PartialState

    state = PartialState(cpu=not torch.cuda.is_available())
    return ProcessGroup(rank=state.process_index, world_size=state.num_processes, _state=state)


def local_device() -> str | None:
    """The device a local model of this process should use (None: let the config decide)."""
    import torch

    if not torch.cuda.is_available():
        return None
    return f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}"
