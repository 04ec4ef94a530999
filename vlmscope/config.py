"""Run configuration as typed data.

A YAML file and the command line both end up here; pydantic rejects a bad value with the path of
the field that holds it (e.g. `models.0.batch_size: Input should be greater than 0`), so a typo
fails before a model is loaded rather than an hour into a run. Numbers are taken as written, never
converted (`vlmscope.typed_values`): `true` is not the count 1, `"8"` is not 8; a name is never
empty; a key given twice in
the file is an error naming both lines (`vlmscope.yaml_files`), not a silent choice of the last.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from vlmscope.typed_values import AsWritten
from vlmscope.yaml_files import load_yaml


class _Strict(AsWritten):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _named(value: str) -> str:
    if not value.strip():
        raise ValueError(f"a name is needed, got {value!r}")
    return value


Name = Annotated[str, AfterValidator(_named)]
"""A model's or track's name: any text but empty or blank (it names result folders and rows)."""


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


class HubDataConfig(_Strict):
    """A dataset repo on the Hugging Face Hub at a revision (a commit pins it; a branch or tag
    is resolved to its commit when the run starts, and the summary records which)."""

    repo: str = Field(
        pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$", description="e.g. TIGER-Lab/MEGA-Bench"
    )
    revision: str = Field(default="main", min_length=1, description="commit, branch or tag")


class JudgePanelConfig(_Strict):
    """Several judges asked every judge request of a track (`judge:` given as a list, or as
    this mapping). Each judge's verdict is kept; the track scores their aggregate: `majority`
    (the most common verdict; a tie goes to the judge listed first among those tied) or `mean`
    (numeric verdicts, or pairwise labels on their -2..2 scale, rounded to the nearest
    verdict). With fewer than `min_valid` judges giving a verdict there is none (the track
    counts the item as unparseable). `repeats` asks each judge that many times (each its own
    cached call); a judge's verdict is then its most common one, and the summary reports how
    stable its verdicts were."""

    judges: list[ModelConfig] = Field(min_length=1)
    aggregate: Literal["majority", "mean"] = "majority"
    min_valid: int = Field(default=1, ge=1)
    repeats: int = Field(default=1, ge=1)
    name: str | None = Field(default=None, description="default: the judges' names joined")

    @model_validator(mode="before")
    @classmethod
    def _listed(cls, raw: Any) -> Any:
        return {"judges": raw} if isinstance(raw, list) else raw

    @model_validator(mode="after")
    def _consistent(self) -> JudgePanelConfig:
        names = [j.name for j in self.judges]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"judges: {', '.join(twice)} listed twice; give each its own name")
        if self.min_valid > len(self.judges):
            raise ValueError(f"min_valid: {self.min_valid} is more than the {len(names)} judges")
        return self

    @property
    def panel_name(self) -> str:
        return self.name or "panel:" + "+".join(j.name for j in self.judges)


def _judge_kind(raw: Any) -> str:
    if isinstance(raw, JudgePanelConfig | list) or (isinstance(raw, dict) and "judges" in raw):
        return "panel"
    return "one"


JudgeConfig = Annotated[
    Annotated[ModelConfig, Tag("one")] | Annotated[JudgePanelConfig, Tag("panel")],
    Discriminator(_judge_kind),
]
"""A track's judge: one model, or a panel of them."""
_JUDGE_TAGS = ("one", "panel")


def judge_models(judge: ModelConfig | JudgePanelConfig | None) -> list[ModelConfig]:
    """The models a track's judge asks (a panel's members)."""
    if judge is None:
        return []
    return list(judge.judges) if isinstance(judge, JudgePanelConfig) else [judge]


class TrackConfig(_Strict):
    """One track to run. Its name is checked against the track registry, and `options` by the
    track's own typed options class, when the run is planned (`vlmscope.runner.plan`)."""

    name: Name
    data: HubDataConfig | None = Field(
        default=None, description="the upstream files from the Hub (instead of `data_dir`)"
    )
    data_dir: str | None = Field(
        default=None, description="upstream files; default: the shipped sample"
    )
    subset: str | None = Field(default=None, description="builder config, e.g. MEGA-Bench `core`")
    judge: JudgeConfig | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_data_source(self) -> TrackConfig:
        if self.data is not None and self.data_dir is not None:
            raise ValueError("give `data` (a Hub repo) or `data_dir` (a local folder), not both")
        return self


class RunConfig(_Strict):
    output_dir: str = "results"
    cache_path: str | None = Field(default=None, description="default: OUTPUT_DIR/cache.sqlite")
    limit: int | None = Field(
        default=None,
        gt=0,
        description="the first N rows of each track; MEGA-Bench: the first N queries of every "
        "task, so every task is still scored",
    )
    models: list[ModelConfig] = Field(min_length=1)
    tracks: list[TrackConfig] = Field(min_length=1)
    push_to_hub: str | None = None
    note: str | None = Field(
        default=None, description="printed after the run's table: what the numbers mean"
    )
    allow_missing_dependencies: bool = Field(
        default=False,
        description="run even when a track's system dependency is missing (summaries say so)",
    )
    pricing: str | None = Field(
        default=None,
        description="YAML of prices per million tokens per model (configs/pricing_example.yaml): "
        "the ledger's costs, the dry run's estimate, the budget",
    )
    budget_usd: float | None = Field(
        default=None,
        gt=0,
        description="stop before the next request would take the run's spending past this",
    )

    @model_validator(mode="after")
    def _one_folder_each(self) -> RunConfig:
        """Each (model, track) result has its own folder: two models (or tracks) whose names
        map to the same folder would overwrite each other's results, so such a config is
        rejected here, naming both entries."""
        for kind, names in (
            ("models", [m.name for m in self.models]),
            ("tracks", [t.name for t in self.tracks]),
        ):
            first: dict[str, int] = {}
            for index, name in enumerate(names):
                folder = folder_name(name)
                if folder in first:
                    other = first[folder]
                    raise ValueError(
                        f"{kind}.{index}.name: {name!r} would share the result folder {folder!r} "
                        f"with {kind}.{other}.name {names[other]!r}; give them distinct names"
                    )
                first[folder] = index
        return self

    @property
    def cache_file(self) -> Path:
        return Path(self.cache_path) if self.cache_path else Path(self.output_dir) / "cache.sqlite"

    def config_hash(self) -> str:
        """Hash of everything that changes results (not where they are written)."""
        payload = self.model_dump(
            exclude={
                "output_dir",
                "cache_path",
                "push_to_hub",
                "allow_missing_dependencies",
                "note",
                "pricing",
                "budget_usd",
            }
        )
        payload["models"] = [_hashed(m) for m in self.models]
        for track, dumped in zip(self.tracks, payload["tracks"], strict=True):
            if isinstance(track.judge, JudgePanelConfig):
                dumped["judge"] = {**dumped["judge"], "judges": judge_hashes(track.judge)}
            elif track.judge is not None:
                dumped["judge"] = _hashed(track.judge)
            if track.data is None:  # keeps the hash of configs written before `data`
                dumped.pop("data", None)
        text = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _hashed(model: BaseModel) -> dict[str, Any]:
    """A model config as the config hash sees it: its options only where set (`set_options`)."""
    return {**model.model_dump(exclude=set(option_fields())), **set_options(model)}


def judge_hashes(panel: JudgePanelConfig) -> list[dict[str, Any]]:
    return [_hashed(j) for j in panel.judges]


def folder_name(name: str) -> str:
    """A model or track name as one path component (no separators, no dot-only names, never a
    leading "_" or ".", which result folders of the run itself use)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


class ConfigError(ValueError):
    """A config file or override that cannot be used; the message names the file and field."""


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read a YAML run config and apply command-line overrides (already parsed)."""
    path = Path(path)
    raw = load_yaml(path, ConfigError) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return parse_config(raw, source=str(path))


def parse_config(raw: dict[str, Any], *, source: str = "<config>") -> RunConfig:
    try:
        return RunConfig.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            ": ".join(filter(None, (_field_path(e["loc"]), e["msg"].removeprefix("Value error, "))))
            for e in err.errors()
        )
        raise ConfigError(f"{source}: {problems}") from err


def _field_path(loc: tuple[int | str, ...]) -> str:
    """The field's path as the YAML spells it: without the tag pydantic adds after `judge`
    (whether it was read as one judge or a panel)."""
    kept = [p for i, p in enumerate(loc) if not (i and loc[i - 1] == "judge" and p in _JUDGE_TAGS)]
    return ".".join(str(p) for p in kept)
