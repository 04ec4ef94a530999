"""The `hf` backend's decode engine: greedy decoding of many requests in fixed slots.

`transformers`' `generate` pads a batch to its longest prompt, runs every row until the last
one stops and pays Python overhead for each of its steps; on a GPU that overhead, not the
weights, sets the speed. This engine instead:

- prefills each group of requests the encoder made together (one request alone in
  batch-invariant mode: the same computation whatever the batch) from the processor output it
  already made (images are processed once), as soon as the group is encoded: until then it
  decodes the requests it holds;
- decodes all running requests together, one token each per step, in a `SlotCache` of fixed
  shape: a finished request's slot takes the next request at once (continuous batching);
- on CUDA, replays each decode step as a captured CUDA graph (one launch instead of hundreds),
  falling back to eager steps if the model cannot be captured;
- in batch-invariant mode, runs the decode steps through `batch_invariant`.

Decoding is greedy over float32 logits, as `generate(do_sample=False)` does; a request stops at
its first stop token (kept, like `generate`) or at its own token limit.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from vlmscope.models.batch_invariant import rowwise_step
from vlmscope.models.hf_blocks import SlotBlocks
from vlmscope.models.hf_engine_types import (
    DecodeFailed,
    Done,
    Failed,
    Finished,
    Settings,
    Stats,
)
from vlmscope.models.hf_fallback import out_of_memory
from vlmscope.models.hf_jobs import JobQueue
from vlmscope.models.hf_prefill import EngineUnsupported, Job, LayerKV, Prefilled
from vlmscope.models.hf_prefillers import InlinePrefill, ThreadPrefill
from vlmscope.models.hf_slots import SlotCache


@dataclass
class _Running:
    job: Job
    tokens: list[int]
    start: int  # its first column in the slot cache
    started: float = field(default_factory=time.perf_counter)


class DecodeEngine:
    """Greedy decoding of jobs in `settings.slots` slots (see the module docstring)."""

    def __init__(self, model: Any, stop_ids: frozenset[int], settings: Settings) -> None:
        self.model = model
        self.stop_ids = stop_ids
        self.settings = settings
        self.device = model.device
        self.cache: SlotCache | None = None
        self.blocks: SlotBlocks | None = None  # with `settings.blocks`: the cache's block lists
        self.graph: Any = None
        self.notes: list[str] = []  # why steps run eagerly on CUDA, or densely, if they do
        self._blocks_proven = False  # a step through these block lists has succeeded
        self.stats = Stats()
        self.prefiller = ThreadPrefill(model) if settings.overlap else InlinePrefill(model)
        self._cache_arg = _cache_argument(model)
        self._tokens = torch.zeros(settings.slots, 1, dtype=torch.long, device=self.device)
        self._positions = torch.zeros(settings.slots, 1, dtype=torch.long, device=self.device)

    def run(self, jobs: Iterable[Job | None], on_finished: Finished, on_failed: Failed) -> None:
        """Answer every job, taking them from `jobs` only as slots free up (so a caller can
        still be encoding later ones); consecutive jobs that share their processor output are
        prefilled together. `jobs` yields None for "none encoded yet": the engine then decodes
        what it holds, or waits if it holds nothing. Raises `DecodeFailed` with the jobs taken
        but not answered if a decode step fails; jobs not yet taken stay in `jobs`."""
        source = JobQueue(iter(jobs))
        ready: deque[Prefilled] = deque()
        running: dict[int, _Running] = {}
        while True:
            self._admit(source, ready, running, on_finished, on_failed)
            if not running:
                if not ready and not source.retries and not self.prefiller.busy:
                    if source.exhausted:
                        return
                    started = time.perf_counter()  # the device idles until inputs come
                    time.sleep(_POLL_S)
                    self.stats.input_wait_s += time.perf_counter() - started
                continue
            try:
                finished = self._decode_step(running)
            except Exception as err:
                taken = [r.job for r in running.values()] + [p.job for p in ready]
                taken += self.prefiller.held() + source.held()
                self.cache, self.blocks, self.graph = None, None, None
                raise DecodeFailed(taken, err) from err
            if finished:
                on_finished(finished)

    # admitting requests
    def _admit(
        self,
        source: JobQueue,
        ready: deque[Prefilled],
        running: dict[int, _Running],
        on_finished: Finished,
        on_failed: Failed,
    ) -> None:
        """Fill free slots: prefilled requests first, then the next group from `source`
        (waiting for a prefill only when nothing runs); then start the next group's prefill
        if the prefiller works ahead."""
        while len(running) < self.settings.slots:
            if not ready and not self._prefill_next(source, ready, not running, on_finished,
                                                    on_failed):  # fmt: skip
                break
            if ready:
                self._place(ready.popleft(), running)
        self.prefiller.prefetch(source)

    def _prefill_next(
        self,
        source: JobQueue,
        ready: deque[Prefilled],
        wait: bool,
        on_finished: Finished,
        on_failed: Failed,
    ) -> bool:
        """The next group's prefill into `ready` (or finished, or failed); False when none
        is done (without `wait`) or none is left."""
        outcome = self.prefiller.next(source, wait)
        if outcome is None:
            return False
        self.stats.prefill_wait_s += outcome.waited_s
        if outcome.prefilled is None:
            if isinstance(outcome.error, EngineUnsupported):
                raise outcome.error
            error = outcome.error or RuntimeError("prefill failed")
            release_device_memory()
            source.retry([r for job in outcome.group if (r := on_failed(job, error)) is not None])
            return True
        self.stats.prefills += len(outcome.group)
        self.stats.prefill_s += outcome.seconds
        for entry in outcome.prefilled:
            if self._done([entry.first], entry.job):
                seconds = time.perf_counter() - entry.started
                on_finished([Done(entry.job.key, [entry.first], seconds)])
            else:
                ready.append(entry)
        return True

    def _place(self, entry: Prefilled, running: dict[int, _Running]) -> None:
        started, capturing = time.perf_counter(), self.stats.capture_s
        self._place_in_slot(entry, running)
        self.stats.place_s += time.perf_counter() - started - (self.stats.capture_s - capturing)

    def _place_in_slot(self, entry: Prefilled, running: dict[int, _Running]) -> None:
        job = entry.job
        cache = self._cache_for(entry.layer_kv, job, running)
        target = self._placement(cache, running, job)
        assert target is not None  # _cache_for made room
        self._shift(cache, running, target - cache.column)
        slot = min(set(range(self.settings.slots)) - set(running))
        cache.place(slot, entry.layer_kv)
        self._tokens[slot, 0] = entry.first
        self._positions[slot, 0] = entry.position
        running[slot] = _Running(job, [entry.first], target - job.prompt_tokens, entry.started)

    def _cache_for(
        self,
        layer_kv: LayerKV,
        job: Job,
        running: dict[int, _Running],
    ) -> SlotCache:
        """The slot cache, made on first use and grown (keeping what it holds) when `job`
        cannot be placed; each change captures the decode step again."""
        cache = self.cache
        if cache is not None and not cache.fits(layer_kv):
            raise EngineUnsupported("two requests gave caches of different shapes")
        if cache is not None and self._placement(cache, running, job) is not None:
            return cache
        # every decode step reads all the columns (the slots' keys and values outweigh the
        # weights at batch 32), so the cache is as narrow as what it must hold, plus slack
        used = (
            0
            if cache is None
            else cache.column - min((r.start for r in running.values()), default=cache.column)
        )
        need = max(job.prompt_tokens, used) + self._future(running, job) + 2 * _SHIFT_SLACK
        self.graph = None
        self.stats.grows += 1
        if cache is None:
            cache = SlotCache.like(layer_kv, self.settings.slots, _round_up(need, 256))
        else:
            cache.grow(_round_up(max(need, cache.capacity * 3 // 2), 256))
        self.cache = cache
        self.blocks = self._blocks_for(cache)
        if self._wants_graph():
            self._capture(cache)
        return cache

    def _placement(self, cache: SlotCache, running: dict[int, _Running], job: Job) -> int | None:
        """The write column at which `job` can start (its prompt just left of it, every running
        sequence's remaining tokens right of it), or None if the cache is too small.

        The current column if it already works; else the lowest that does plus some slack, so
        that the next, slightly longer prompt needs no shift of its own.
        """
        future = self._future(running, job)
        used = cache.column - min((r.start for r in running.values()), default=cache.column)
        lowest = max(job.prompt_tokens, used)
        if lowest + future > cache.capacity:
            return None
        if job.prompt_tokens <= cache.column and cache.column + future <= cache.capacity:
            return cache.column
        return min(cache.capacity - future, lowest + _SHIFT_SLACK)

    def _future(self, running: dict[int, _Running], job: Job) -> int:
        """Columns still to be written: the most any running sequence, or `job`, may need."""
        remaining = [r.job.max_new_tokens - len(r.tokens) for r in running.values()]
        return max([job.max_new_tokens - 1, *remaining])

    def _shift(self, cache: SlotCache, running: dict[int, _Running], offset: int) -> None:
        if offset:
            self.stats.shifts += 1
        cache.shift(offset)
        for r in running.values():
            r.start += offset

    # decoding
    def _decode_step(self, running: dict[int, _Running]) -> list[Done]:
        started = time.perf_counter()
        cache = self.cache
        assert cache is not None
        if cache.column >= cache.capacity:
            used = cache.column - min(r.start for r in running.values())
            self._shift(cache, running, used - cache.column)
        try:
            self._run_step(cache, running)
        except Exception as err:
            if self.blocks is None or self._blocks_proven or out_of_memory(err):
                raise
            self._attend_densely(cache, err)
            self._run_step(cache, running)
        self._blocks_proven = self.blocks is not None
        self.stats.cache_bytes_read += self._bytes_read(cache)
        cache.column += 1
        new_tokens = self._tokens[:, 0].tolist()
        self.stats.steps += 1
        self.stats.busy_slots += len(running)
        self.stats.step_s += time.perf_counter() - started
        finished = []
        for slot in sorted(running):
            entry = running[slot]
            entry.tokens.append(new_tokens[slot])
            if self._done(entry.tokens, entry.job):
                del running[slot]
                self._positions[slot, 0] = 0
                cache.mask[slot].zero_()  # a free slot attends to nothing old (nor reads it)
                finished.append(
                    Done(entry.job.key, entry.tokens, time.perf_counter() - entry.started)
                )
        return finished

    def _run_step(self, cache: SlotCache, running: dict[int, _Running]) -> None:
        if self.graph is not None:
            self.graph.replay()
        elif self.settings.invariant:
            spans = [(running[s].start, cache.column + 1) if s in running else (0, 0)
                     for s in range(self.settings.slots)]  # fmt: skip
            with rowwise_step(spans, self.settings.invariant_rows):
                self._step(cache)
        else:
            self._step(cache)

    def _blocks_for(self, cache: SlotCache) -> SlotBlocks | None:
        if not self.settings.blocks:
            return None
        self._blocks_proven = False  # a new cache width: FlexAttention compiles again
        try:
            return SlotBlocks(cache)
        except Exception as err:  # a torch without this BlockMask constructor, say
            self._give_up_blocks(err)
            return None

    def _attend_densely(self, cache: SlotCache, err: Exception) -> None:
        """The first step through the block lists failed (FlexAttention does not compile for
        this device or model): attend through the mask from now on. A failed step changed
        nothing that the next one does not write again."""
        self._give_up_blocks(err)
        if self._wants_graph():
            self._capture(cache)

    def _give_up_blocks(self, err: Exception) -> None:
        self.settings.blocks, self.blocks = False, None
        self._note(f"decode attention is dense: the block lists failed ({err})")

    def _note(self, note: str) -> None:
        if note[:300] not in self.notes:
            self.notes.append(note[:300])

    def _bytes_read(self, cache: SlotCache) -> int:
        """The slot keys and values a step's attention reads: all of them through the mask, or
        the listed blocks."""
        if self.blocks is None:
            return cache.nbytes
        return cache.nbytes * self.blocks.columns_read() // (cache.slots * cache.capacity)

    def _step(self, cache: SlotCache) -> None:
        """One token for every slot: the tensors a CUDA graph captures and replays."""
        cache.mask.index_fill_(3, cache.write_at, True)
        mask: Any = cache.mask
        if self.blocks is not None:
            self.blocks.refresh()
            mask = self.blocks.mask
        with torch.inference_mode():
            output = self.model(
                input_ids=self._tokens,
                position_ids=self._positions,
                attention_mask=mask,
                use_cache=True,
                **{self._cache_arg: cache},
            )
        self._tokens.copy_(output.logits[:, -1:].float().argmax(-1))
        self._positions.add_(1)
        cache.write_at.add_(1)

    def _capture(self, cache: SlotCache) -> None:
        """Capture `_step` as a CUDA graph; on failure steps stay eager. The cache may hold
        running sequences (it grew): the warm-up steps write only columns right of the write
        column, and the mask, tokens and positions they change are put back."""
        self.prefiller.quiesce()
        column, started = cache.column, time.perf_counter()
        saved = (cache.mask.clone(), self._tokens.clone(), self._positions.clone())
        try:
            self.graph = self._record(cache)
        except Exception as err:
            self.graph = None
            self._note(f"decode steps run eagerly: CUDA graph capture failed ({err})")
        finally:
            self.stats.captures += 1
            self.stats.capture_s += time.perf_counter() - started
            for tensor, before in zip(
                (cache.mask, self._tokens, self._positions), saved, strict=True
            ):
                tensor.copy_(before)
            cache.write_at.fill_(column)

    def _record(self, cache: SlotCache) -> Any:
        """Warm-up steps on a side stream (kernels chosen, workspaces allocated), then one
        step recorded into a CUDA graph."""
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                self._step(cache)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        # thread-local: encoding threads pin host memory meanwhile, which a global capture
        # would forbid them (and their requests would fail)
        with torch.cuda.graph(graph, capture_error_mode="thread_local"):
            self._step(cache)
        return graph

    def _wants_graph(self) -> bool:
        return self.device.type == "cuda" and self.settings.graphs and not self.settings.invariant

    def _done(self, tokens: list[int], job: Job) -> bool:
        return tokens[-1] in self.stop_ids or len(tokens) >= job.max_new_tokens


def _cache_argument(model: Any) -> str:
    """The keyword the installed `transformers` takes the cache by (renamed in 5.x)."""
    import inspect

    parameters = inspect.signature(type(model).forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


_SHIFT_SLACK = 64  # columns of headroom when the slots must shift anyway


def _round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def release_device_memory() -> None:
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


_POLL_S = 0.001  # how long the engine sleeps while it waits for inputs with nothing to decode
