"""A VLM run in-process by vLLM as a backend: the `hf` backend's requests, cache and results,
with vLLM's batching (continuous batching, paged attention) for throughput.

The runner hands `batch_size` requests per call; vLLM schedules them itself and the answers
are committed when the call returns. Each request is translated on its own first
(`vllm_inputs.to_vllm`: the chat-template prompt, the images within the budget, greedy
sampling up to its token limit), so an unreadable image fails that request alone.

Context overflows end as in the `hf` backend: a request whose prompt plus its token limit
does not fit the model's positions is asked again with half its images (5 -> 2 -> 1 -> 0),
each retry noted, and with none left it ends as CONTEXT_OVERFLOW. vLLM refuses a prompt that
is too long for the whole call, so a failed call is split in halves until the request that
failed is alone, and the others are answered as usual.

vLLM is imported when the model is first needed (a run whose answers are all cached never
loads it); without it, or without a GPU, the run stops with `VLLMUnavailable`, which says what
to install.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vlmscope.config import VLLMModelConfig, set_options
from vlmscope.dependencies import MissingDependency
from vlmscope.messages import GenerationParams, Request, Response, Status, Usage
from vlmscope.models.base import ProgressCallback, SyncBackend
from vlmscope.models.hf_inputs import ContextOverflow, is_overflow, overflow_note
from vlmscope.models.hf_load import resolved_path
from vlmscope.models.in_order import InOrderSink
from vlmscope.models.reasoning import Tags, prompt_opens_reasoning, resolve_tags, with_reasoning
from vlmscope.models.vllm_inputs import VLLMInput, sampling_kwargs, to_vllm

logger = logging.getLogger(__name__)

INSTALL = "pip install 'vlmscope[vllm]'"


class VLLMUnavailable(MissingDependency):
    """vLLM is not installed, or there is no GPU for it here."""


@dataclass
class _Item:
    """A request on its way through vLLM: its translation and what happened so far."""

    request: Request
    input: VLLMInput
    notes: list[str] = field(default_factory=list)
    attempts: int = 1


@dataclass(frozen=True)
class _Loaded:
    llm: Any
    sampling_params: Any  # vllm.SamplingParams
    template: Any  # the processor whose chat template builds the prompts
    max_model_len: int | None


class VLLMBackend(SyncBackend):
    """`vllm.LLM` and the model's processor, loaded on first use."""

    def __init__(self, config: VLLMModelConfig) -> None:
        super().__init__()
        self.name = config.name
        self.config = config
        self._loaded: _Loaded | None = None
        self._tags = resolve_tags(config.reasoning_tags)

    @property
    def identity(self) -> dict[str, Any]:
        """What changes the answers: the model (path, revision, dtype), the context, the
        decoding and the image budget; not batch size, GPUs or memory share, which must not."""
        return {
            "backend": "vllm",
            "path": resolved_path(self.config.path),
            "revision": self.config.revision,
            "dtype": self.config.dtype,
            "max_model_len": self.config.max_model_len,
            "max_new_tokens": self.config.max_new_tokens,
            "decoding": {k: v for k, v in _GREEDY.items() if k != "max_tokens"},
            "image_budget": self.config.image_budget.model_dump(),
            "engine_args": dict(sorted(self.config.engine_args.items())),
            **set_options(self.config),
        }

    def generate(
        self, requests: Sequence[Request], on_done: ProgressCallback | None = None
    ) -> list[Response]:
        """Answer every request, in order; `on_done` gets each call's answers as it returns."""
        if not requests:
            return []
        loaded = self._load()
        sink = InOrderSink(len(requests), on_done)
        size = self.config.batch_size
        for start in range(0, len(requests), size):
            ready: list[tuple[int, _Item]] = []
            for index in range(start, min(start + size, len(requests))):
                prepared = self._prepare(loaded, requests[index])
                if isinstance(prepared, Response):
                    sink.put(index, prepared)
                else:
                    ready.append((index, prepared))
            answers = self._answer(loaded, [item for _, item in ready])
            for (index, _), response in zip(ready, answers, strict=True):
                sink.put(index, response)
            sink.flush()
        return sink.all()

    def _prepare(
        self,
        loaded: _Loaded,
        request: Request,
        *,
        keep: int | None = None,
        notes: list[str] | None = None,
        attempts: int = 1,
    ) -> _Item | Response:
        try:
            translated = to_vllm(
                request,
                loaded.template,
                self.config.image_budget,
                self.config.max_new_tokens,
                keep=keep,
                system_prompt=self.config.system_prompt,
                options=self.config.generation,
            )
        except Exception as err:  # an unreadable image, a template that rejects the messages
            return Response(
                text="",
                status=Status.REQUEST_FAILED,
                error=f"{type(err).__name__}: {err}",
                image_notes=tuple(notes or ()),
                attempts=attempts,
            )
        return _Item(request, translated, [*(notes or ()), *translated.notes], attempts)

    def _answer(self, loaded: _Loaded, items: list[_Item]) -> list[Response]:
        """One vLLM call; if it fails, each half alone, down to the request that failed."""
        if not items:
            return []
        try:
            outcomes = _run(loaded, items, self._tags)
        except Exception as err:
            if len(items) > 1:
                middle = len(items) // 2
                return self._answer(loaded, items[:middle]) + self._answer(loaded, items[middle:])
            outcomes = [err]
        return [
            outcome if isinstance(outcome, Response) else self._retry(loaded, item, outcome)
            for item, outcome in zip(items, outcomes, strict=True)
        ]

    def _retry(self, loaded: _Loaded, item: _Item, err: BaseException) -> Response:
        """A request that failed alone: with half its images if that could help, else failed."""
        images = item.input.images
        overflow = is_overflow(err)
        if not overflow or images == 0:
            status = Status.CONTEXT_OVERFLOW if overflow else Status.REQUEST_FAILED
            error = f"context overflow even without images: {err}" if overflow else None
            return Response(
                text="",
                status=status,
                error=error or f"{type(err).__name__}: {err}",
                image_notes=tuple(item.notes),
                attempts=item.attempts,
            )
        history = [n for n in item.notes if n.startswith("context overflow")]
        prepared = self._prepare(
            loaded,
            item.request,
            keep=images // 2,
            notes=[*history, overflow_note(err, images)],
            attempts=item.attempts + 1,
        )
        if isinstance(prepared, Response):
            return prepared
        return self._answer(loaded, [prepared])[0]

    def _load(self) -> _Loaded:
        if self._loaded is None:
            self._loaded = load(self.config)
        return self._loaded


_GREEDY = sampling_kwargs(GenerationParams(), None)


def _run(
    loaded: _Loaded, items: list[_Item], tags: Tags | None = None
) -> list[Response | BaseException]:
    """One `LLM.generate` call. A request whose prompt plus token limit exceeds the model's
    positions comes back as an error (as the hf backend refuses it before generating), so
    answers do not depend on how vLLM would have cut it short. Each answer has its reasoning
    trace split off by `tags` (a prompt that opened the trace makes the reply start in it)."""
    started = time.perf_counter()
    outputs = loaded.llm.generate(
        [item.input.prompt for item in items],
        [loaded.sampling_params(**item.input.sampling) for item in items],
        use_tqdm=False,
    )
    if len(outputs) != len(items):
        raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(items)} prompts")
    share = (time.perf_counter() - started) / len(items)
    results: list[Response | BaseException] = []
    for item, output in zip(items, outputs, strict=True):
        completion = output.outputs[0]
        prompt_tokens = len(output.prompt_token_ids or ())
        limit = item.input.sampling["max_tokens"]
        if loaded.max_model_len is not None and prompt_tokens + limit > loaded.max_model_len:
            results.append(
                ContextOverflow(
                    f"{prompt_tokens} prompt + {limit} new tokens > {loaded.max_model_len} positions"
                )
            )
            continue
        answer = Response(
            text=completion.text,
            usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(completion.token_ids)),
            latency_s=share,
            image_notes=tuple(item.notes),
            attempts=item.attempts,
        )
        opened = prompt_opens_reasoning(item.input.prompt["prompt"], tags)
        results.append(with_reasoning(answer, tags, opened=opened))
    return results


def load(config: VLLMModelConfig) -> _Loaded:
    """vLLM's engine on this machine's GPUs, and the model's processor for the prompts."""
    try:
        import vllm
    except ImportError as err:
        raise VLLMUnavailable(
            f"model {config.name!r} uses the vllm backend, but vLLM is not installed "
            f"({err}); install it with: {INSTALL} (it needs a CUDA GPU)"
        ) from err
    gpus = gpu_count()
    if gpus < config.tensor_parallel_size:
        found = "no GPU" if gpus == 0 else f"{gpus} GPU(s)"
        raise VLLMUnavailable(
            f"model {config.name!r} uses the vllm backend with tensor_parallel_size="
            f"{config.tensor_parallel_size}, but this machine has {found}; run it where "
            "there are enough, or use the hf backend (same requests, slower)"
        )
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise VLLMUnavailable(
            f"model {config.name!r} uses the vllm backend, which runs in one process: start "
            "the run with plain python, not `accelerate launch`, and split the model over "
            "GPUs with tensor_parallel_size"
        )
    from transformers import AutoProcessor

    path = resolved_path(config.path)
    trust = bool(config.engine_args.get("trust_remote_code", False))
    template = AutoProcessor.from_pretrained(
        path, revision=config.revision, trust_remote_code=trust
    )
    engine = {
        "model": path,
        "revision": config.revision,
        "dtype": config.dtype,
        "tensor_parallel_size": config.tensor_parallel_size,
        "gpu_memory_utilization": config.gpu_memory_utilization,
        "limit_mm_per_prompt": {"image": config.image_budget.max_images},
        **({"max_model_len": config.max_model_len} if config.max_model_len else {}),
        **config.engine_args,
    }
    logger.info("loading %s with vLLM %s", path, getattr(vllm, "__version__", "?"))
    llm = vllm.LLM(**engine)
    return _Loaded(llm, vllm.SamplingParams, template, _max_model_len(llm, config))


def gpu_count() -> int:
    """CUDA devices torch sees (vLLM's own check comes later and says less)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _max_model_len(llm: Any, config: VLLMModelConfig) -> int | None:
    """The positions the engine settled on (the config's, or the model's own)."""
    engine_config = getattr(getattr(llm, "llm_engine", None), "model_config", None)
    found = getattr(engine_config, "max_model_len", None)
    return found if isinstance(found, int) else config.max_model_len
