"""One config class per model backend (`hf`, `openai`, `oracle`, `coin`, `vllm`), told apart by
their `backend` field in `ModelConfig`, and the image budget each of them carries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from vlmscope.config.fields import Name, _Strict
from vlmscope.config.options import _AnswerOptions, _ApiOptions, _LocalDecoding

_MAX_NEW_TOKENS = (
    "cap on new tokens per reply; default none: each track's own (official) limit applies"
)


class ImageBudget(_Strict):
    """How many images a model may see per request, and how large.

    MEGA-Bench caps the longer side at 1000 px and gives each model a maximum number of images
    (paper App. D.2); requests over the budget keep their last images (the query's own media
    come last) and the response records what was dropped or resized.
    """

    max_images: int = Field(default=16, gt=0)
    max_side: int = Field(default=1000, gt=0)
    in_context_images: int = Field(
        default=8,
        ge=0,
        description="share of max_images for demonstrations and video frames "
        "(MEGA-Bench `total_demo_video_frames`, paper Table 6)",
    )


TinyArch = Literal[
    "llava",
    "llava_thinking",
    "idefics3",
    "smolvlm",
    "qwen2_5_vl",
    "qwen3_vl",
    "llava_onevision",
    "gemma3",
    "internvl",
    "mistral3",
]
"""The families `vlmscope make-tiny-model` builds (`vlmscope.models.tiny`)."""


class HFModelConfig(_AnswerOptions, _LocalDecoding):
    """A transformers VLM loaded with AutoProcessor + AutoModelForImageTextToText."""

    backend: Literal["hf"]
    name: Name
    path: str = Field(description="local directory or Hub id")
    tiny_arch: TinyArch | None = Field(
        default=None, description="build a tiny random-weight model at `path` if it is missing"
    )
    batch_size: int = Field(default=8, gt=0)
    dtype: Literal["float32", "bfloat16", "float16", "auto"] = "float32"
    device_map: str | None = None
    max_new_tokens: int | None = Field(default=None, gt=0, description=_MAX_NEW_TOKENS)
    image_budget: ImageBudget = ImageBudget()


class OpenAIModelConfig(_AnswerOptions, _ApiOptions):
    """Any OpenAI-compatible /v1/chat/completions server.

    The key itself never appears in a config, log, cache or result: only the name of the
    environment variable that holds it.
    """

    backend: Literal["openai"]
    name: Name
    base_url: str
    model: str
    api_key_env: str | None = None
    max_new_tokens: int | None = Field(default=None, gt=0, description=_MAX_NEW_TOKENS)
    concurrency: int = Field(default=8, gt=0)
    adaptive_concurrency: bool = Field(
        default=True,
        description="start at `concurrency`, cut it on 429s and raise it back as requests "
        "succeed (AIMD); false: always `concurrency` requests in flight",
    )
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)
    image_budget: ImageBudget = ImageBudget()


class OracleModelConfig(_Strict):
    backend: Literal["oracle"]
    name: Name = "oracle"
    image_budget: ImageBudget = ImageBudget(max_images=64)


class CoinModelConfig(_Strict):
    """A stand-in judge for offline demos and plumbing checks, not a judge: it answers every
    request with `reply`, its `{label}` filled with one of `labels` picked by a hash of the
    request (so a request always gets the same reply). It reads nothing, so its verdicts
    measure nothing; a board built on them only shows that the pipeline runs."""

    backend: Literal["coin"]
    name: Name = "coin"
    labels: list[str] = Field(
        default=["A>>B", "A>B", "A=B", "B>A", "B>>A"],
        min_length=1,
        description="what it picks from",
    )
    reply: str = Field(
        default="Final Verdict: [[{label}]]", description="the reply; `{label}` is replaced"
    )
    image_budget: ImageBudget = ImageBudget()


class VLLMModelConfig(_AnswerOptions):
    """A VLM run in-process by vLLM: offline batched generation on GPUs, greedy, with the same
    requests, image budget and cache as `hf` (`pip install 'vlmscope[vllm]'`).

    `tensor_parallel_size` and `gpu_memory_utilization` place the model and change no answer,
    so the cache key leaves them out, as it does `batch_size`; `engine_args` (more keyword
    arguments for `vllm.LLM`, e.g. `enforce_eager`, `mm_processor_kwargs`) are in it, since
    some of them do change answers."""

    backend: Literal["vllm"]
    name: Name
    path: str = Field(description="local directory or Hub id")
    revision: str | None = Field(default=None, description="Hub branch, tag or commit")
    dtype: Literal["auto", "bfloat16", "float16", "float32"] = "auto"
    tensor_parallel_size: int = Field(default=1, gt=0, description="GPUs the model is split over")
    max_model_len: int | None = Field(
        default=None, gt=0, description="positions for prompt + reply; default: the model's"
    )
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    batch_size: int = Field(
        default=256,
        gt=0,
        description="requests handed to vLLM per call (it schedules them itself); "
        "each call's answers are committed to the cache before the next",
    )
    max_new_tokens: int | None = Field(default=None, gt=0, description=_MAX_NEW_TOKENS)
    image_budget: ImageBudget = ImageBudget()
    engine_args: dict[str, Any] = Field(default_factory=dict)


ModelConfig = Annotated[
    HFModelConfig | OpenAIModelConfig | OracleModelConfig | CoinModelConfig | VLLMModelConfig,
    Field(discriminator="backend"),
]
