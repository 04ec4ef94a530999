"""A local transformers VLM as a backend: batched greedy generation with left padding.

Batch size must change neither the answers nor the cache keys (a run resumed with another batch
size reuses its cache). So decoding is greedy, prompts are left-padded with an attention mask
(generation continues from the last real token of every row), and each request's output is cut
at its own token limit, which equals what a run of that request alone would produce.
Requests are sorted by prompt length inside a window of several batches so that a batch holds
similar lengths and little padding; `generate` still returns them in request order, and
`generate_batches` hands each batch back with its indices (the runner commits it before the next
batch runs).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlmscope.config import HFModelConfig, set_options
from vlmscope.messages import Request, Response, Status, Usage, effective_max_new_tokens
from vlmscope.models.base import ProgressCallback, SyncBackend
from vlmscope.models.hf_generation import Decoding, finish, generate_kwargs, seed_sampling
from vlmscope.models.hf_inputs import Encoder, Prepared, encode, is_overflow, overflow_note
from vlmscope.models.in_order import InOrderSink
from vlmscope.models.reasoning import resolve_tags

BatchCallback = Callable[[Sequence[int], Sequence[Response]], None]


@dataclass(frozen=True)
class _Loaded:
    processor: Any
    model: Any
    encoder: Encoder
    stop_ids: frozenset[int]
    pad_id: int
    model_type: str  # for the batching notes
    decoding: Decoding = Decoding()


@dataclass
class _Fallback:
    """What failed batches taught: a batch size that fits in memory, whether multi-image
    requests must go alone; and, for the run summary, each lesson with how many failed batches
    it cost (a batch answered in halves may fail at more than one level)."""

    max_batch: int | None = None
    multi_image_alone: bool = False
    _lessons: dict[str, tuple[str, int]] = field(default_factory=dict)  # kind -> (note, count)

    def batch_size(self, configured: int) -> int:
        return configured if self.max_batch is None else min(configured, self.max_batch)

    def alone(self, item: Prepared) -> bool:
        return self.multi_image_alone and len(item.images) > 1

    def learn(self, items: list[Prepared], err: Exception, model_type: str) -> None:
        """A batch of `items` failed with `err`, yet in smaller batches every one was answered."""
        error = " ".join(f"{type(err).__name__}: {err}".split())[:200]
        if type(err).__name__ == "OutOfMemoryError":
            half = max(1, len(items) // 2)
            self.max_batch = half if self.max_batch is None else min(self.max_batch, half)
            kind, note = "memory", "out of device memory: batches of at most {} since"
        elif any(len(i.images) > 1 for i in items):  # (an outer level of the same halving, too)
            self.multi_image_alone = True
            kind, note = (
                "multi-image",
                (
                    f"{model_type or 'the model'} failed on a batch holding multi-image requests"
                    f" ({error}) that work alone: multi-image requests go one at a time since"
                ),
            )
        else:
            kind, note = (
                "other",
                (
                    f"a batch failed ({error}) though each of its requests works alone;"
                    " answered in smaller batches"
                ),
            )
        first, count = self._lessons.get(kind, (note, 0))
        self._lessons[kind] = (first, count + 1)

    def notes(self) -> list[str]:
        notes = []
        for kind, (note, count) in self._lessons.items():
            text = note.format(self.max_batch) if kind == "memory" else note
            notes.append(text if count == 1 else f"{text} ({count} failed batches)")
        return notes


class HFBackend(SyncBackend):
    """`AutoProcessor` + `AutoModelForImageTextToText`, loaded on first use.

    Loading is deferred so that a run whose answers are all cached never loads the weights.
    Decoding is greedy (a request's temperature is not used): answers must repeat; a config's
    `generation` options may ask otherwise (`hf_generation`), and replies lose their reasoning
    trace to `Response.reasoning`.
    `sort_window` is how many requests are sorted by length together (default: 8 batches);
    a larger window pads less but answers the first requests later.

    A batch that fails although each of its requests works alone is answered in smaller
    batches, and the backend learns from it: out of device memory, later batches are smaller;
    a family that cannot batch multi-image requests gets those one at a time from then on.
    `batching_notes` says what fell back; the run summary shows it.
    """

    def __init__(self, config: HFModelConfig, *, sort_window: int | None = None) -> None:
        super().__init__()
        self.name = config.name
        self.config = config
        self.sort_window = sort_window or 8 * config.batch_size
        self._loaded: _Loaded | None = None
        self._fallback = _Fallback()

    def with_batch_size(self, batch_size: int) -> HFBackend:
        """The same loaded model with another batch size (same identity, same answers)."""
        other = HFBackend(self.config.model_copy(update={"batch_size": batch_size}))
        other._loaded = self._loaded
        other._fallback = self._fallback  # what batching failures taught holds for both
        return other

    @property
    def identity(self) -> dict[str, Any]:
        """What changes the answers; not batch size or device map, which must not."""
        return {
            "backend": "hf",
            "path": resolved_path(self.config.path, local=self.config.tiny_arch is not None),
            "dtype": self.config.dtype,
            "max_new_tokens": self.config.max_new_tokens,
            "image_budget": self.config.image_budget.model_dump(),
            **set_options(self.config),
        }

    @property
    def batching_notes(self) -> list[str]:
        """How batching fell back so far (empty when every batch ran as formed)."""
        return self._fallback.notes()

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        """Answer every request, in order; never raises for one bad request.

        `on_done` receives responses in request order, each call continuing where the last
        stopped, as soon as a batch completes a run of them.
        """
        sink = InOrderSink(len(requests), on_done)

        def put(indices: Sequence[int], responses: Sequence[Response]) -> None:
            for index, response in zip(indices, responses, strict=True):
                sink.put(index, response)
            sink.flush()

        self.generate_batches(requests, put)
        return sink.all()

    def generate_batches(self, requests: Sequence[Request], on_batch: BatchCallback) -> None:
        """Answer every request, handing each batch's answers to `on_batch` with their indices.

        Requests are sorted by prompt length within each window of `sort_window`, so batches
        come back out of request order; `on_batch` returns before the next batch is formed,
        so a runner that commits there loses at most the batch in flight. Requests that cannot
        be prepared (an unreadable image, no room even without images) come first, together.
        """
        loaded = self._load()
        for start in range(0, len(requests), self.sort_window):
            ready: list[tuple[int, Prepared]] = []
            failed: list[tuple[int, Response]] = []
            for index in range(start, min(start + self.sort_window, len(requests))):
                request = requests[index]
                limit = effective_max_new_tokens(
                    request.params.max_new_tokens, self.config.max_new_tokens
                )
                prepared = loaded.encoder.prepare(request, limit)
                if isinstance(prepared, Response):
                    failed.append((index, prepared))
                else:
                    ready.append((index, prepared))
            if failed:
                on_batch([i for i, _ in failed], [r for _, r in failed])
            ready.sort(key=lambda item: item[1].prompt_tokens)
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

    def _answer_batch(self, loaded: _Loaded, items: list[Prepared]) -> list[Response]:
        """One generate call; if it fails, each half again, down to each request alone, so only
        a bad request fails (and it alone may be retried with fewer images)."""
        try:
            return _run_batch(loaded, items)
        except Exception as err:
            _release_device_memory()
            if len(items) == 1:
                return [self._retry_alone(loaded, items[0], err)]
            half = (len(items) + 1) // 2
            answers = self._answer_batch(loaded, items[:half])
            answers += self._answer_batch(loaded, items[half:])
            if all(a.ok for a in answers):  # the batch failed, not one of its requests
                self._fallback.learn(items, err, loaded.model_type)
            return answers

    def _retry_alone(self, loaded: _Loaded, item: Prepared, err: Exception) -> Response:
        """A request that failed alone: with fewer images if that could help, else a failure."""
        keep = len(item.images)
        if not is_overflow(err) or keep == 0:
            return Response(
                text="",
                status=_status_of(err, keep),
                error=f"{type(err).__name__}: {err}",
                image_notes=tuple(item.notes),
                attempts=item.attempts,
            )
        history = tuple(n for n in item.notes if n.startswith("context overflow"))
        prepared = loaded.encoder.prepare(
            item.request,
            item.max_new_tokens,
            keep=keep // 2,
            history=(*history, overflow_note(err, keep)),
            attempts=item.attempts,
        )
        if isinstance(prepared, Response):
            return prepared
        return self._answer_batch(loaded, [prepared])[0]

    def _load(self) -> _Loaded:
        if self._loaded is None:
            self._loaded = load(self.config)
        return self._loaded


def resolved_path(path: str, *, local: bool = False) -> str:
    """A local directory (or one `local` says will be built) as an absolute path; a Hub id as is."""
    candidate = Path(path).expanduser()
    if local or candidate.exists() or path.startswith((".", "/", "~")):
        return str(candidate.resolve())
    return path


def load(config: HFModelConfig) -> _Loaded:
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    if config.tiny_arch is not None:
        from vlmscope.models.tiny import ensure_tiny_model

        ensure_tiny_model(config.path, config.tiny_arch)
    path = resolved_path(config.path, local=config.tiny_arch is not None)
    try:  # the PIL image processors work without torchvision
        processor = AutoProcessor.from_pretrained(path, backend="pil")
    except (TypeError, ValueError, ImportError):  # processors that reject or cannot use it
        processor = AutoProcessor.from_pretrained(path)
    if not hasattr(processor, "image_processor"):
        raise ValueError(f"{path}: no image processor, not a vision-language model directory")
    tokenizer = processor.tokenizer
    tokenizer.padding_side = "left"  # generation continues from each row's last real token
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = config.dtype if config.dtype == "auto" else getattr(torch, config.dtype)
    model = AutoModelForImageTextToText.from_pretrained(
        path, dtype=dtype, device_map=config.device_map
    ).eval()
    text_config = model.config.get_text_config()
    generation = model.generation_config
    stop = generation.eos_token_id if generation.eos_token_id is not None else []
    stop_ids = {stop} if isinstance(stop, int) else set(stop)
    if tokenizer.eos_token_id is not None:
        stop_ids.add(tokenizer.eos_token_id)
    encoder = Encoder(
        processor,
        config.image_budget,
        getattr(text_config, "max_position_embeddings", None),
        config.system_prompt,
        config.generation.chat_template_kwargs,
    )
    return _Loaded(
        processor,
        model,
        encoder,
        frozenset(stop_ids),
        tokenizer.pad_token_id,
        getattr(model.config, "model_type", ""),
        Decoding(config.generation, resolve_tags(config.reasoning_tags)),
    )


def _run_batch(loaded: _Loaded, items: list[Prepared]) -> list[Response]:
    import torch

    start = time.perf_counter()
    inputs = encode(loaded.processor, [i.prompt for i in items], [i.images for i in items])
    if not bool(inputs["attention_mask"][:, -1].all()):
        raise RuntimeError("prompts are not left-padded; batched answers would be wrong")
    model = loaded.model
    inputs = inputs.to(device=model.device, dtype=model.dtype)
    width = inputs["input_ids"].shape[1]
    seed_sampling(loaded.decoding.options)
    with torch.inference_mode():
        output = model.generate(
            **inputs,
            **generate_kwargs(loaded.decoding.options, loaded.processor.tokenizer),
            max_new_tokens=max(i.max_new_tokens for i in items),
            pad_token_id=loaded.pad_id,
        )
    share = (time.perf_counter() - start) / len(items)
    responses = []
    for row, item in zip(output[:, width:].tolist(), items, strict=True):
        tokens = _completion(row, item.max_new_tokens, loaded.stop_ids)
        text = loaded.processor.tokenizer.decode(tokens, skip_special_tokens=True)
        answer = Response(
            text=text,
            usage=Usage(prompt_tokens=item.prompt_tokens, completion_tokens=len(tokens)),
            latency_s=item.seconds + share,
            image_notes=tuple(item.notes),
            attempts=item.attempts,
        )
        responses.append(finish(answer, item.prompt, loaded.decoding))
    return responses


def _completion(row: list[int], limit: int, stop_ids: frozenset[int]) -> list[int]:
    """The row's own answer: up to its token limit, through the first stop token (padding after)."""
    row = row[:limit]
    for position, token in enumerate(row):
        if token in stop_ids:
            return row[: position + 1]
    return row


def _status_of(err: Exception, images: int) -> Status:
    return Status.CONTEXT_OVERFLOW if is_overflow(err) and images == 0 else Status.REQUEST_FAILED


def _release_device_memory() -> None:
    """After an out-of-memory error the allocator's cache must be emptied before a retry."""
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
