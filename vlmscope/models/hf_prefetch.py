"""Encoding ahead of the device: the processor (image decoding and processing, tokenising) runs
on worker threads while the device prefills and decodes earlier requests.

Groups of requests (`hf_groups`) are submitted a bounded number ahead, handed back in the order
they were submitted, and on CUDA their tensors are pinned there, so that the copy to the device
does not wait for the host. The consumer may `poll`: a group not encoded yet is not waited for,
so the device keeps decoding what it holds (the slots engine admits a group the moment it is
ready). With no workers each group is encoded when it is taken (the plain path, for tests).

An encoder error reaches no thread's edge: a group that raises is encoded again request by
request, and a request that still raises is answered with a failure that names it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from vlmscope.messages import Request, Response, Status
from vlmscope.models.hf_inputs import Prepared
from vlmscope.models.hf_prefill import pinned

Item = Prepared | Response
Encode = Callable[[list[tuple[Request, int]]], list[Item]]
Group = list[tuple[int, Request, int]]  # (index, request, token limit)


def encode_ahead(
    encode: Encode,
    requests: Sequence[Request],
    groups: list[list[int]] | None,
    limit: Callable[[Request], int],
    *,
    workers: int | None,
    batch_size: int,
    pin: bool,
) -> Prefetch:
    """`requests` encoded in `groups` (default: each alone, in order) by `workers` threads (None:
    up to 8), about two batches ahead; `limit` gives a request's token limit."""
    groups = groups if groups is not None else [[i] for i in range(len(requests))]
    workers = min(8, os.cpu_count() or 1) if workers is None else workers
    mean = max(1, len(requests) // max(len(groups), 1))  # requests per group
    return Prefetch(
        encode,
        [[(i, requests[i], limit(requests[i])) for i in group] for group in groups],
        workers=workers,
        ahead=max(2, (2 * batch_size) // mean) + workers,
        pin=pin,
    )


class Prefetch:
    """Encoded groups in submission order, `ahead` of them in flight (see the module docstring)."""

    def __init__(
        self, encode: Encode, groups: Sequence[Group], *, workers: int, ahead: int, pin: bool
    ) -> None:
        self._encode = encode
        self._groups = iter(groups)
        self._pin = pin
        self._pool = (
            ThreadPoolExecutor(workers, thread_name_prefix="vlmscope-encode") if workers else None
        )
        self._ahead: deque[tuple[Group, Future[list[tuple[int, Item]]] | None]] = deque()
        self._lock = threading.Lock()
        self.encode_s = 0.0  # host seconds spent encoding, on whatever thread
        self.waited_s = 0.0  # seconds the consumer blocked on an encoding not finished
        for _ in range(max(1, ahead)):
            self._submit()

    def __iter__(self) -> Iterator[tuple[int, Item]]:
        """Every (index, encoded request), waiting for each group in turn."""
        while not self.exhausted:
            yield from self.take()

    @property
    def exhausted(self) -> bool:
        return not self._ahead

    def ready(self) -> bool:
        """Whether `take` would return without waiting (always, with no workers)."""
        return bool(self._ahead) and (self._ahead[0][1] is None or self._ahead[0][1].done())

    def poll(self) -> list[tuple[int, Item]] | None:
        """The next group if it is encoded, else None (and nothing is waited for)."""
        return self.take() if self.ready() else None

    def take(self) -> list[tuple[int, Item]]:
        """The next group, waiting for its encoding if need be ([] when none is left)."""
        if not self._ahead:
            return []
        group, future = self._ahead.popleft()
        self._submit()
        if future is None:
            return self._run(group)
        started = time.perf_counter()
        items = future.result()
        self.waited_s += time.perf_counter() - started
        return items

    def close(self) -> None:
        """Drop the groups not started; wait only for those a worker is encoding now."""
        self._ahead.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _submit(self) -> None:
        group = next(self._groups, None)
        if group is not None:
            future = None if self._pool is None else self._pool.submit(self._run, group)
            self._ahead.append((group, future))

    def _run(self, group: Group) -> list[tuple[int, Item]]:
        started = time.perf_counter()
        items = _encoded(self._encode, group)
        if self._pin:
            shared = {id(i.inputs): i.inputs for _, i in items if isinstance(i, Prepared)}
            for inputs in shared.values():
                pinned(inputs)
        with self._lock:
            self.encode_s += time.perf_counter() - started
        return items


def _encoded(encode: Encode, group: Group) -> list[tuple[int, Item]]:
    """`group` encoded together; if that raises, each request alone; a request that still
    raises is a failure naming it."""
    try:
        items = encode([(request, limit) for _, request, limit in group])
        return list(zip([index for index, _, _ in group], items, strict=True))
    except Exception as err:
        if len(group) == 1:
            return [(group[0][0], _failure(group[0][0], err))]
        return [item for member in group for item in _encoded(encode, [member])]


def _failure(index: int, err: Exception) -> Response:
    error = f"request {index} could not be encoded: {type(err).__name__}: {err}"
    return Response(text="", status=Status.REQUEST_FAILED, error=error)
