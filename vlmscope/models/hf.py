"""A local transformers VLM as a backend: greedy answers, batched, resumable batch by batch.

Batch size must change neither the cache keys nor, where it can be helped, the answers (a run
resumed with another batch size reuses its cache). Decoding is greedy. Two engines answer:

- `slots` (default, `hf_decode`): requests prefilled in groups of similar size, all running
  requests decoded together in fixed slots, a finished request's slot refilled at once; on a
  GPU each decode step is a replayed CUDA graph. With `batch_invariant: true` every answer is the same whatever
  the batch, in any dtype (`batch_invariant`).
- `generate` (`hf_reference`): transformers' `generate` on left-padded batches, each request's
  output cut at its own token limit. The reference, and the engine for families whose cache
  the slots cannot hold (sliding-window layers).

Requests are encoded by worker threads running ahead of the device (`hf_prefetch`). The slots
engine takes them in groups of similar size (`hf_groups`) as slots free up and each group is
encoded, decoding meanwhile; the generate engine sorts them by prompt length inside a window of
several batches. `generate` returns answers in request order, and
`generate_batches` hands each group back with its indices as soon as it is done (the runner
commits it before more are answered).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

from vlmscope.config import HFModelConfig, set_options
from vlmscope.messages import Request, Response, Usage, effective_max_new_tokens
from vlmscope.models.base import ProgressCallback, SyncBackend
from vlmscope.models.hf_decode import DecodeEngine, release_device_memory
from vlmscope.models.hf_engine_types import DecodeFailed, Done, Settings, Stats
from vlmscope.models.hf_fallback import BatchLessons
from vlmscope.models.hf_generation import decodes_greedily, finish
from vlmscope.models.hf_groups import prefill_groups, within_tokens
from vlmscope.models.hf_inputs import Prepared, answer_failed, is_overflow, overflow_note
from vlmscope.models.hf_load import Loaded, load, resolved_path
from vlmscope.models.hf_prefetch import Prefetch, encode_ahead
from vlmscope.models.hf_prefill import EngineUnsupported, Job
from vlmscope.models.hf_reference import generate_tokens
from vlmscope.models.in_order import InOrderSink

BatchCallback = Callable[[Sequence[int], Sequence[Response]], None]
# options that never change an answer
_SPEED_ONLY = frozenset(
    {
        "engine",
        "prefill_batch",
        "prefill_images",
        "prefill_tokens",
        "cuda_graphs",
        "decode_attention",
        "overlap_prefill",
    }
)


class HFBackend(SyncBackend):
    """`AutoProcessor` + `AutoModelForImageTextToText`, loaded on first use.

    Loading is deferred so that a run whose answers are all cached never loads the weights.
    Decoding is always greedy (a request's temperature is not used): answers must repeat.
    `sort_window` is how many requests are sorted by length together (default: 8 batches);
    a larger window pads less but answers the first requests later.

    A batch that fails although each of its requests works alone is answered in smaller
    batches, and the backend learns from it (`BatchLessons`); `batching_notes` says what fell
    back, and which engine answered when it is not the configured one; the summary shows it.
    """

    def __init__(
        self,
        config: HFModelConfig,
        *,
        sort_window: int | None = None,
        encode_workers: int | None = None,
    ) -> None:
        super().__init__()
        self.name = config.name
        self.config = config
        self.sort_window = sort_window or 8 * config.batch_size
        self.encode_workers = encode_workers  # None: up to 8; 0: encode on the calling thread
        self._loaded: Loaded | None = None
        self._fallback = BatchLessons()
        self._engine: DecodeEngine | None = None
        self._engine_notes: dict[str, None] = {}  # ordered set

    def with_batch_size(self, batch_size: int) -> HFBackend:
        """The same loaded model with another batch size (same identity, same answers)."""
        other = HFBackend(
            self.config.model_copy(update={"batch_size": batch_size}),
            encode_workers=self.encode_workers,
        )
        other._loaded = self._loaded
        other._fallback = self._fallback  # what batching failures taught holds for both
        return other

    @property
    def identity(self) -> dict[str, Any]:
        """What changes the answers: not batch size, device map, engine, prefill groups or
        CUDA graphs, which must not; the options a config sets (`batch_invariant` among
        them) where they differ from their defaults."""
        options = set_options(self.config)
        return {
            "backend": "hf",
            "path": resolved_path(self.config.path, local=self.config.tiny_arch is not None),
            "dtype": self.config.dtype,
            "max_new_tokens": self.config.max_new_tokens,
            "image_budget": self.config.image_budget.model_dump(),
            **{name: value for name, value in options.items() if name not in _SPEED_ONLY},
        }

    @property
    def batching_notes(self) -> list[str]:
        """How batching fell back so far (empty when every batch ran as formed)."""
        return self._fallback.notes() + list(self._engine_notes)

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        """Answer every request, in order; never raises for one bad request.

        `on_done` receives responses in request order, each call continuing where the last
        stopped, as soon as answers complete a run of them.
        """
        sink = InOrderSink(len(requests), on_done)

        def put(indices: Sequence[int], responses: Sequence[Response]) -> None:
            for index, response in zip(indices, responses, strict=True):
                sink.put(index, response)
            sink.flush()

        self.generate_batches(requests, put)
        return sink.all()

    def generate_batches(self, requests: Sequence[Request], on_batch: BatchCallback) -> None:
        """Answer every request, handing each group of answers to `on_batch` with indices.

        Groups come back out of request order; `on_batch` returns before more requests are
        answered, so a runner that commits there loses at most the requests in flight.
        A request that cannot be prepared (an unreadable image, no room even without images)
        is handed back as its failure as soon as that is known.
        """
        loaded = self._load()
        if self._engine_for(loaded) is not None:
            self._answer_in_slots(loaded, requests, on_batch)
        else:
            with self._encoded(loaded, requests) as encoded:
                self._answer_in_windows(loaded, iter(encoded), on_batch)

    def _encoded(
        self, loaded: Loaded, requests: Sequence[Request], groups: list[list[int]] | None = None
    ) -> Prefetch:
        """The requests encoded ahead of the device (`hf_prefetch`), each of `groups` (default:
        each request alone, in order) in one processor call, within the token budget."""
        encode = partial(
            within_tokens, loaded.encoder.prepare_group, tokens=self.config.prefill_tokens
        )
        return encode_ahead(
            encode, requests, groups, self._limit, workers=self.encode_workers,
            batch_size=self.config.batch_size, pin=loaded.model.device.type == "cuda",
        )  # fmt: skip

    def _limit(self, request: Request) -> int:
        return effective_max_new_tokens(request.params.max_new_tokens, self.config.max_new_tokens)

    # the slots engine
    def _engine_for(self, loaded: Loaded) -> DecodeEngine | None:
        """The slots engine sized by what failures taught, or None: `generate` answers."""
        if self.config.engine != "slots" or self._unsupported():
            return None
        if not decodes_greedily(self.config.generation):
            self._engine_notes[
                "sampling, repetition_penalty and stop strings are applied by transformers'"
                " generate: answered by the generate engine"
            ] = None
            return None
        slots = self._fallback.batch_size(self.config.batch_size)
        if self._engine is None or self._engine.settings.slots != slots:
            self._engine = None
            release_device_memory()
            settings = Settings(
                slots,
                invariant=self.config.batch_invariant,
                graphs=self.config.cuda_graphs,
                blocks=self.config.decode_attention == "blocks",
                overlap=self.config.overlap_prefill,
            )
            self._engine = DecodeEngine(loaded.model, loaded.stop_ids, settings)
        return self._engine

    @property
    def engine_stats(self) -> Stats | None:
        """The slots engine's counters (None before it ran, or with the generate engine)."""
        return None if self._engine is None else self._engine.stats

    def reset_engine_stats(self) -> None:
        if self._engine is not None:
            self._engine.stats = Stats()

    def _unsupported(self) -> bool:
        return any(note.startswith("slots engine") for note in self._engine_notes)

    def _answer_in_slots(
        self, loaded: Loaded, requests: Sequence[Request], on_batch: BatchCallback
    ) -> None:
        """Requests enter the slots in request order (the runner sorts them by size), each as
        soon as it is encoded and a slot is free."""
        outstanding: dict[int, Prepared] = {}  # taken by the engine, not answered yet
        rows = 1 if self.config.batch_invariant else self.config.prefill_batch
        rows = min(rows or self.config.batch_size, self.config.batch_size)
        groups = prefill_groups(requests, rows, self.config.prefill_images, self.sort_window)
        with self._encoded(loaded, requests, groups) as encoded:
            self._run_slots(loaded, encoded, outstanding, on_batch)

    def _run_slots(
        self,
        loaded: Loaded,
        encoded: Prefetch,
        outstanding: dict[int, Prepared],
        on_batch: BatchCallback,
    ) -> None:
        """Feed the engine from `encoded` without waiting for an encoding while it has
        requests to decode; on a decode failure, run again with what is left."""

        def jobs() -> Iterator[Job | None]:
            while not encoded.exhausted:
                group = encoded.poll()
                if group is None:
                    yield None  # not encoded yet: the engine decodes meanwhile
                    continue
                failed = [(index, item) for index, item in group if isinstance(item, Response)]
                if failed:
                    on_batch([index for index, _ in failed], [item for _, item in failed])
                # the whole group is outstanding before any of it is taken: if the engine
                # hands over to `generate`, what it did not take is answered there
                prepared = [(i, item) for i, item in group if isinstance(item, Prepared)]
                outstanding.update(prepared)
                for index, item in prepared:
                    yield _job(index, item)

        def finished(done: list[Done]) -> None:
            items = [outstanding.pop(d.key) for d in done]
            responses = [
                _response(loaded, i, d.tokens, d.seconds) for i, d in zip(items, done, strict=True)
            ]
            on_batch([d.key for d in done], responses)

        def failed(job: Job, err: Exception) -> Job | None:
            item = outstanding[job.key]
            if item.group > 1:  # its group failed: alone it may work
                retry = loaded.encoder.prepare(item.request, item.max_new_tokens)
            else:
                retry = self._fewer_images(loaded, item, err)
            if isinstance(retry, Response):
                del outstanding[job.key]
                on_batch([job.key], [retry])
                return None
            outstanding[job.key] = retry
            return _job(job.key, retry)

        pending: Iterator[Job | None] = jobs()
        counted = 0.0  # encoding seconds already added to the engine's stats
        while True:
            engine = self._engine_for(loaded)
            if engine is None:  # the model turned out unsupported: generate answers the rest
                rest = [*outstanding.items(), *encoded]
                self._answer_in_windows(loaded, iter(rest), on_batch)
                return
            try:
                engine.run(pending, finished, failed)
                return
            except EngineUnsupported as err:
                if self.config.batch_invariant:
                    raise ValueError(
                        f"batch_invariant needs the slots engine, which cannot hold "
                        f"{loaded.model_type or 'this model'}: {err}"
                    ) from err
                self._engine_notes[
                    f"slots engine cannot hold {loaded.model_type or 'this model'} ({err}):"
                    " answered by transformers' generate"
                ] = None
            except DecodeFailed as failure:
                release_device_memory()
                unanswered = failure.unanswered
                if engine.settings.slots == 1:  # the request itself fails, alone
                    first, unanswered = unanswered[0], unanswered[1:]
                    on_batch(
                        [first.key], [answer_failed(outstanding.pop(first.key), failure.error)]
                    )
                else:
                    self._fallback.learn_decode_failure(engine.settings.slots, failure.error)
                pending = itertools.chain(unanswered, pending)
            finally:
                if engine is not None:
                    self._engine_notes.update(dict.fromkeys(engine.notes))
                    engine.stats.encode_s += encoded.encode_s - counted
                    counted = encoded.encode_s

    # the generate engine
    def _answer_in_windows(
        self,
        loaded: Loaded,
        encoded: Iterator[tuple[int, Prepared | Response]],
        on_batch: BatchCallback,
    ) -> None:
        """Windows of `sort_window` requests, each sorted by prompt length and cut into
        batches; requests that could not be prepared come first in their window."""
        while window := list(itertools.islice(encoded, self.sort_window)):
            failed = [(i, r) for i, r in window if isinstance(r, Response)]
            if failed:
                on_batch([i for i, _ in failed], [r for _, r in failed])
            ready = sorted(
                ((i, p) for i, p in window if isinstance(p, Prepared)),
                key=lambda item: item[1].prompt_tokens,
            )
            for batch in self._batches(ready):
                answers = self._answer_batch(loaded, [item for _, item in batch])
                on_batch([index for index, _ in batch], answers)

    def _batches(self, ready: list[tuple[int, Prepared]]) -> Iterator[list[tuple[int, Prepared]]]:
        """Consecutive runs of the sorted requests, `batch_size` long (or what the fallback
        allows); a request the fallback says must go alone is a batch of its own. Lazy, so a
        lesson learned from one batch already shapes the next."""
        batch: list[tuple[int, Prepared]] = []
        for entry in ready:
            if self._fallback.alone(entry[1]):
                yield [entry]
                continue
            batch.append(entry)
            if len(batch) >= self._fallback.batch_size(self.config.batch_size):
                yield batch
                batch = []
        if batch:
            yield batch

    def _answer_batch(self, loaded: Loaded, items: list[Prepared]) -> list[Response]:
        """One generate call; if it fails, each half again, down to each request alone, so only
        a bad request fails (and it alone may be retried with fewer images)."""
        try:
            return _run_batch(loaded, items)
        except Exception as err:
            release_device_memory()
            if len(items) == 1:
                retry = self._fewer_images(loaded, items[0], err)
                return [retry if isinstance(retry, Response) else self._answer_batch(
                    loaded, [retry])[0]]  # fmt: skip
            half = (len(items) + 1) // 2
            answers = self._answer_batch(loaded, items[:half])
            answers += self._answer_batch(loaded, items[half:])
            if all(a.ok for a in answers):  # the batch failed, not one of its requests
                self._fallback.learn(items, err, loaded.model_type)
            return answers

    def _fewer_images(self, loaded: Loaded, item: Prepared, err: Exception) -> Prepared | Response:
        """A request that failed alone: prepared with fewer images if that could help, else its
        failure."""
        keep = len(item.images)
        if not is_overflow(err) or keep == 0:
            return answer_failed(item, err)
        history = tuple(n for n in item.notes if n.startswith("context overflow"))
        return loaded.encoder.prepare(
            item.request,
            item.max_new_tokens,
            keep=keep // 2,
            history=(*history, overflow_note(err, keep)),
            attempts=item.attempts,
        )

    def load(self) -> None:
        """Load the model now rather than on the first request (a server warms up before
        it takes any)."""
        self._load()

    def _load(self) -> Loaded:
        if self._loaded is None:
            self._loaded = load(self.config)
        return self._loaded


def _job(key: int, item: Prepared) -> Job:
    return Job(key, item.inputs, item.max_new_tokens, item.prompt_tokens, item.row)


def _run_batch(loaded: Loaded, items: list[Prepared]) -> list[Response]:
    """Answer `items` with one padded `generate` call (each cut at its own limit)."""
    rows, seconds = generate_tokens(loaded, items)
    share = seconds / len(items)
    return [_response(loaded, item, row, share) for row, item in zip(rows, items, strict=True)]


def _response(loaded: Loaded, item: Prepared, tokens: list[int], seconds: float) -> Response:
    """The reply as the backend returns it: cut at a stop string, its reasoning split off."""
    answer = Response(
        text=loaded.processor.tokenizer.decode(tokens, skip_special_tokens=True),
        usage=Usage(prompt_tokens=item.prompt_tokens, completion_tokens=len(tokens)),
        latency_s=item.seconds + seconds,
        image_notes=tuple(item.notes),
        attempts=item.attempts,
    )
    return finish(answer, item.prompt, loaded.decoding)
