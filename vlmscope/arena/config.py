"""The arena's configuration as typed data: who battles, how pairs are drawn, what is allowed.

An operator writes one YAML file (`configs/arena_demo.yaml`) and points the Space at it with
`VLMSCOPE_ARENA_CONFIG`. Contestants are the run configs' model entries (`openai` endpoints,
or `hf` for a local model), so a model is described the same way for a run and for the arena.
A bad value fails at start with the field's path, as `vlmscope.config` does.

`moderation` names a function as `module:function`. Configs elsewhere never point at code by
string; here the operator who deploys the Space writes the file and the function, so naming it
is the plug-in point, not data from users.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from vlmscope.config import ConfigError, HFModelConfig, ModelConfig, OpenAIModelConfig
from vlmscope.config.error_paths import problems_text
from vlmscope.typed_values import AsWritten
from vlmscope.yaml_files import load_yaml

_HOOK = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class _Strict(AsWritten):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sampling(_Strict):
    """Decoding settings every contestant gets (an arena samples; runs are greedy)."""

    temperature: float = Field(default=0.7, ge=0, le=2)
    max_new_tokens: int = Field(default=1024, gt=0)
    top_p: float | None = Field(
        default=None, gt=0, le=1, description="sent to OpenAI endpoints; local models ignore it"
    )


class Pairing(_Strict):
    """How two contestants are drawn for a battle.

    `uniform`: every unordered pair equally likely, sides in random order (FastChat's
    anonymous mode without sampling weights). `weighted`: a pair is drawn with probability
    proportional to the product of its models' `weights` (a model not named weighs 1)."""

    rule: Literal["uniform", "weighted"] = "uniform"
    weights: dict[str, float] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _weights_positive(self) -> Pairing:
        for name, weight in self.weights.items():
            if not weight > 0:
                raise ValueError(f"weights.{name}: must be > 0, got {weight}")
        return self


class Limits(_Strict):
    """What one request may carry, and how often a session or an address may ask and vote."""

    max_prompt_chars: int = Field(default=4000, gt=0)
    max_images: int = Field(default=4, ge=0)
    max_image_bytes: int = Field(default=5_000_000, gt=0)
    max_image_pixels: int = Field(default=20_000_000, gt=0, description="width x height")
    image_formats: list[str] = Field(default=["PNG", "JPEG", "WEBP", "GIF"], min_length=1)
    max_turns: int = Field(default=8, gt=0, description="user turns per battle")
    window_s: float = Field(default=60.0, gt=0, description="the rate limits' sliding window")
    asks_per_session: int = Field(default=10, gt=0, description="per window")
    asks_per_ip: int = Field(default=60, gt=0, description="per window, all sessions together")
    votes_per_session: int = Field(default=10, gt=0, description="per window")
    votes_per_ip: int = Field(default=60, gt=0, description="per window")
    ip_header: str | None = Field(
        default=None,
        description="take the client address from this header (a Space's proxy sets "
        "x-forwarded-for); default the connection's address. Only behind a proxy that sets "
        "it: a client can send any header",
    )
    proxy_hops: int = Field(
        default=1,
        gt=0,
        description="proxies in front that append to ip_header: the client's address is the "
        "entry this many from the end (entries before it are the client's own to write)",
    )
    concurrent_answers: int = Field(
        default=16, gt=0, description="battles streaming at once in the Space (a queue beyond)"
    )


class StoreConfig(_Strict):
    path: str = Field(default="arena/battles.sqlite", description="the SQLite vote store")
    hub_repo: str | None = Field(
        default=None, description="a Hub dataset repo the votes are pushed to in batches"
    )
    push_every: int = Field(default=100, gt=0, description="votes per pushed batch")


class BoardConfig(_Strict):
    bootstrap_rounds: int = Field(default=100, gt=0)
    min_votes: int = Field(default=100, ge=0)
    min_votes_to_rate: int = Field(
        default=20,
        ge=1,
        description="votes before the live board shows ratings (below: 'too few votes to rate')",
    )
    refresh_s: float | None = Field(
        default=None, gt=0, description="re-rate on this timer; default: on demand only"
    )


class ArenaConfig(_Strict):
    contestants: list[ModelConfig] = Field(min_length=2)
    sampling: Sampling = Sampling()
    pairing: Pairing = Pairing()
    limits: Limits = Limits()
    store: StoreConfig = StoreConfig()
    board: BoardConfig = BoardConfig()
    moderation: str | None = Field(
        default=None,
        description="`module:function` called with each prompt before it is sent; returns "
        "None to allow it or the reason to refuse it",
    )

    @model_validator(mode="after")
    def _check(self) -> ArenaConfig:
        seen: dict[str, int] = {}
        for index, model in enumerate(self.contestants):
            if not isinstance(model, OpenAIModelConfig | HFModelConfig):
                raise ValueError(
                    f"contestants.{index}.backend: {model.backend!r}; the arena serves "
                    "openai endpoints and hf models"
                )
            if model.name in seen:
                raise ValueError(
                    f"contestants.{index}.name: {model.name!r} is also contestants.{seen[model.name]}"
                )
            seen[model.name] = index
        for name in self.pairing.weights:
            if name not in seen:
                raise ValueError(f"pairing.weights.{name}: not a contestant")
        if self.moderation is not None and not _HOOK.match(self.moderation):
            raise ValueError(f"moderation: {self.moderation!r} is not `module:function`")
        return self

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.contestants)


def load_arena_config(path: str | Path) -> ArenaConfig:
    """Read an arena YAML file; ConfigError names the file and every bad field."""
    path = Path(path)
    raw: Any = load_yaml(path, ConfigError) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    try:
        return ArenaConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{path}: {problems_text(err, ArenaConfig)}") from err
