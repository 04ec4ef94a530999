"""The options a model config may add to every request it answers: prompt, decoding,
reasoning tags, how an OpenAI-compatible body is written, and how the local `hf` backend decodes.

They are mixins of the backend configs (`vlmscope.config.models`). An option left at its
default changes neither a backend's cache keys nor the config hash (`option_fields`,
`set_options`), so configs written before it existed keep theirs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from vlmscope.config.fields import _Strict

ReasoningPreset = Literal["think", "kimi-vl", "none"]
"""Named reasoning tags (`vlmscope.models.reasoning.TAG_PRESETS`): `think` is `<think>` ...
`</think>` (Qwen3 and Qwen3-VL, GLM-4.1V/4.5V, MiMo-VL, InternVL3.5, DeepSeek-R1 and most open
reasoning models), `kimi-vl` Kimi-VL-Thinking's `◁think▷` ... `◁/think▷`, `none` no inline
trace (a reply's separate reasoning field is still read)."""


class GenerationOptions(_Strict):
    """Decoding options of one model (answers or judgments), for `hf`, `openai` and `vllm`.

    Unset (the default) leaves each track's rule alone: greedy, the track's token limit.
    `temperature` overrides the track's (MEGA-Bench's 0, ...); sampling makes answers
    depend on the seed (and, for `hf`, on the batch they share), so set `seed` with it.
    `chat_template_kwargs` reach the chat template (`enable_thinking: false` switches
    Qwen3-style thinking off); an API server gets them as its `chat_template_kwargs` field.
    """

    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, gt=0)
    stop: list[Annotated[str, Field(min_length=1)]] | None = Field(default=None, min_length=1)
    seed: int | None = None
    repetition_penalty: float | None = Field(default=None, gt=0)
    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)


class _AnswerOptions(_Strict):
    """What a model config may add to every request it answers (a judge's too)."""

    system_prompt: str | None = Field(
        default=None,
        min_length=1,
        description="sent as system text, before any the track sends (a blank line between)",
    )
    reasoning_tags: ReasoningPreset | tuple[str, str] = Field(
        default="think",
        description="where an inline reasoning trace starts and ends in a reply: a preset "
        "name or [open, close]; what is between is kept as the trace, not scored",
    )
    generation: GenerationOptions = GenerationOptions()

    @field_validator("reasoning_tags")
    @classmethod
    def _two_tags(cls, tags: str | tuple[str, str]) -> str | tuple[str, str]:
        if isinstance(tags, tuple) and (not all(t.strip() for t in tags) or tags[0] == tags[1]):
            raise ValueError("give two different, non-blank tags: [open, close]")
        return tags


# Body fields the backend writes itself, and the config field that sets each.
_OWNED_BODY_FIELDS = {
    "model": "model",
    "messages": "the track's requests",
    "max_tokens": "max_new_tokens and token_limit_field",
    "max_completion_tokens": "max_new_tokens and token_limit_field",
    "temperature": "generation.temperature and send_temperature",
    "reasoning_effort": "reasoning_effort",
    **{name: f"generation.{name}" for name in GenerationOptions.model_fields},
}


class _ApiOptions(_Strict):
    """How an OpenAI-compatible body is written, for servers that differ (reasoning APIs)."""

    token_limit_field: Literal["max_tokens", "max_completion_tokens"] = Field(
        default="max_tokens",
        description="reasoning APIs (OpenAI o-series, GPT-5) take only max_completion_tokens",
    )
    send_temperature: bool = Field(
        default=True, description="false for APIs that refuse any temperature but their own"
    )
    reasoning_effort: str | None = Field(
        default=None, pattern=r"^[a-z]+$", description="e.g. minimal, low, medium, high"
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="more body fields for one server (vLLM, SGLang, ...)"
    )

    @field_validator("extra_body")
    @classmethod
    def _not_owned(cls, body: dict[str, Any]) -> dict[str, Any]:
        for name in body:
            if name in _OWNED_BODY_FIELDS:
                raise ValueError(
                    f"{name!r} is written by the backend; set {_OWNED_BODY_FIELDS[name]}"
                )
        return body


def option_fields() -> frozenset[str]:
    """The per-model prompt, decoding, reasoning and API options: each is part of a backend's
    identity (so of its cache keys) and of the config hash only when it differs from its
    default, so a config that sets none keeps the keys and hash it had before they existed."""
    return (
        frozenset(_AnswerOptions.model_fields)
        | frozenset(_ApiOptions.model_fields)
        | frozenset(_LocalDecoding.model_fields)
    )


def set_options(config: BaseModel) -> dict[str, Any]:
    """The options of `config` that differ from their defaults, as JSON values."""
    names = option_fields() & set(type(config).model_fields)
    return config.model_dump(mode="json", include=set(names), exclude_defaults=True)


class _LocalDecoding(_Strict):
    """How the local `hf` backend decodes. `batch_invariant` decides whether an answer may
    depend on its batch, so it is part of the cache key when set; the engine, prefill groups
    and CUDA graphs say how fast answers come (in float32 they never change one), so, like the
    batch size, they are not."""

    engine: Literal["slots", "generate"] = Field(
        default="slots",
        description="slots: requests prefilled alone and decoded together in fixed slots, a "
        "finished one replaced at once (CUDA graphs on a GPU); generate: transformers' "
        "generate on padded batches (the reference; also used for families the slots "
        "engine cannot hold, such as sliding-window attention)",
    )
    batch_invariant: bool = Field(
        default=False,
        description="every answer independent of batch size and position, in any dtype "
        "(row-blocked products, per-request attention in float32); slower, and part of the "
        "cache key",
    )
    cuda_graphs: bool = Field(
        default=True, description="replay each decode step as a CUDA graph (slots engine, GPU)"
    )
    overlap_prefill: bool = Field(
        default=False,
        description="slots engine: prefill the next group on a worker thread (its own CUDA "
        "stream) while the running requests decode, instead of stopping decoding for it",
    )
    decode_attention: Literal["dense", "blocks"] = Field(
        default="dense",
        description="slots engine: how a decode step attends. dense: every slot reads all the "
        "cache's columns through a mask (SDPA); blocks: each slot reads only the 128-column "
        "blocks its own sequence fills (FlexAttention, compiled on CUDA), less memory traffic "
        "when prompts differ in length",
    )
    prefill_batch: int | None = Field(
        default=None,
        gt=0,
        description="slots engine: at most this many requests encoded and prefilled together, "
        "similar sizes grouped (default: batch_size; 1 with batch_invariant)",
    )
    prefill_images: int = Field(
        default=8,
        gt=0,
        description="slots engine: at most this many images in one prefill group: a group is "
        "encoded on one thread, so small groups spread image processing over the threads and "
        "the first reaches the device early (and the vision tower's memory is bounded); "
        "a request with more images goes alone",
    )
    prefill_tokens: int = Field(
        default=65536,
        gt=0,
        description="slots engine: at most this many padded prompt positions (rows x longest) "
        "in one prefill group; a group over it is encoded again in halves",
    )

    @model_validator(mode="after")
    def _invariance_needs_slots(self) -> _LocalDecoding:
        if self.batch_invariant and self.engine != "slots":
            raise ValueError("batch_invariant needs engine: slots (generate pads whole batches)")
        if self.decode_attention == "blocks" and (self.engine != "slots" or self.batch_invariant):
            raise ValueError(
                "decode_attention: blocks needs engine: slots without batch_invariant "
                "(which attends over each request's own columns in its own way)"
            )
        options: GenerationOptions = getattr(self, "generation", GenerationOptions())
        if self.batch_invariant and (
            (options.temperature or 0) > 0 or options.repetition_penalty or options.stop
        ):
            raise ValueError(
                "batch_invariant decodes greedily: it cannot take generation.temperature > 0, "
                "repetition_penalty or stop"
            )
        return self
