"""`overlap_prefill: true`: the next group is prefilled on a worker thread while the running
requests decode, with the answers, failures and retries of the inline engine."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.models.helpers import OutOfMemoryError, backend, mixed_requests, patch_forward
from vlmscope.messages import GenerationParams, ImagePart, Response, Status, user_request
from vlmscope.models import hf_prefillers
from vlmscope.models.hf_jobs import JobQueue
from vlmscope.models.hf_prefill import Job


def texts(responses: list[Response]) -> list[tuple[str, int]]:
    return [(r.text, r.usage.completion_tokens) for r in responses]


def test_decoding_goes_on_while_the_next_group_is_prefilled(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # long answers: the first group still decodes whenever the worker gets to the second
    requests = [
        dataclasses.replace(r, params=GenerationParams(max_new_tokens=24))
        for r in mixed_requests(8)
    ]
    inline = backend(tiny_dirs["llava"], batch_size=4, prefill_batch=2).generate(requests)
    overlapped = backend(tiny_dirs["llava"], batch_size=4, prefill_batch=2, overlap_prefill=True)
    real = hf_prefillers.prefill
    threads: set[str] = set()
    steps_during: list[int] = []  # decode steps taken while a later group was prefilled

    def prefill(model: Any, jobs: list[Any]) -> Any:
        threads.add(threading.current_thread().name)
        stats = overlapped.engine_stats
        if stats is not None and stats.steps > 0 and not steps_during:
            before, deadline = stats.steps, time.monotonic() + 10
            while stats.steps < before + 2 and time.monotonic() < deadline:
                time.sleep(0.001)  # inline, no step could run until this returns
            steps_during.append(stats.steps - before)
        return real(model, jobs)

    monkeypatch.setattr(hf_prefillers, "prefill", prefill)
    assert texts(overlapped.generate(requests)) == texts(inline)
    assert steps_during and steps_during[0] >= 2
    assert threads and all(name.startswith("vlmscope-prefill") for name in threads)
    stats = overlapped.engine_stats
    assert stats is not None and stats.prefills == len(requests)
    assert stats.prefill_wait_s < stats.prefill_s  # part of the prefills hid behind decoding


def test_a_failed_group_and_a_failed_decode_step_lose_and_repeat_nothing(
    tiny_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = mixed_requests(10)
    broken = user_request(ImagePart(b"not an image", name="broken.png"), "What is this?")
    reference = backend(tiny_dirs["llava"], batch_size=1).generate(requests)
    overlapped = backend(tiny_dirs["llava"], batch_size=6, prefill_batch=3, overlap_prefill=True)
    failures = 0

    def oom(ids: torch.Tensor) -> Exception | None:  # decode steps over more than 3 slots fail
        nonlocal failures
        if ids.shape == (len(ids), 1) and len(ids) > 3:
            failures += 1
            return OutOfMemoryError("CUDA out of memory")
        return None

    patch_forward(monkeypatch, overlapped._load().model, oom)
    got = overlapped.generate([*requests[:4], broken, *requests[4:]])
    assert got[4].status is Status.REQUEST_FAILED and got[4].error
    assert texts(got[:4] + got[5:]) == texts(reference)
    assert failures >= 1 and overlapped.batching_notes[0].startswith("out of device memory")


def test_an_in_flight_group_is_given_back_when_the_loop_fails(tiny_dirs: dict[str, Path]) -> None:
    worker = hf_prefillers.ThreadPrefill(backend(tiny_dirs["llava"])._load().model)
    release = threading.Event()
    shared = object()  # one processor output: the two jobs are one prefill group
    jobs = [Job(key, inputs=shared, max_new_tokens=2, prompt_tokens=3) for key in (1, 2)]

    def blocked(model: Any, group: list[Any]) -> Any:
        release.wait(10)
        raise RuntimeError("never prefilled")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hf_prefillers, "prefill", blocked)
        queue = JobQueue(iter(jobs))
        assert worker.next(queue, wait=False) is None  # in flight, not done: decode meanwhile
        assert worker.busy and queue.exhausted
        release.set()
        assert worker.held() == jobs and not worker.busy
        assert worker.next(queue, wait=True) is None  # nothing left to prefill
