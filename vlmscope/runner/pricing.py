"""Prices per model, from a user's pricing file, to turn a run's tokens into money.

A pricing file is YAML (`configs/pricing_example.yaml`):

    currency: USD
    models:
      gpt-4o-2024-08-06: {input: 2.50, output: 10.00}   # per million tokens

A model of a run (or a judge) is priced by its name in the config, else, for an API model, by the
model id it sends (`model:`). Reasoning tokens are output tokens (they are part of a reply's
completion tokens, and APIs bill them so). The oracle and the coin stand-in answer from the
request itself: they cost nothing and need no entry. A model with no entry has no cost: the
ledger says so ("n/a") rather than counting it as free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vlmscope.config import (
    CoinModelConfig,
    ConfigError,
    ModelConfig,
    OpenAIModelConfig,
    OracleModelConfig,
    RunConfig,
    judge_models,
)
from vlmscope.shipped_configs import config_path

PER_TOKENS = 1_000_000
FREE = (OracleModelConfig, CoinModelConfig)
"""Backends that answer without a model: no tokens, no cost."""


class Price(BaseModel):
    """USD per million tokens: `input` for prompt tokens, `output` for completion tokens
    (reasoning included)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / PER_TOKENS


class PriceList(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    currency: str = "USD"
    models: dict[str, Price] = Field(default_factory=dict)


ZERO = Price(input=0, output=0)


def load_prices(path: str | Path) -> PriceList:
    """Read a pricing file; a bad one raises `ConfigError` naming the file and the field.

    `configs/<name>.yaml` where there is no checkout (a wheel, another folder) is the copy
    shipped with vlmscope, as for `--config`: the demo names its example prices that way."""
    path, _ = config_path(Path(path))
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(f"{path}: {err}") from err
    try:
        return PriceList.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()
        )
        raise ConfigError(f"{path}: {problems}") from err


@dataclass(frozen=True)
class Pricer:
    """Each model's price by the name its calls are recorded under (None: no price known)."""

    prices: Mapping[str, Price | None]
    currency: str = "USD"
    source: str | None = None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.prices.get(model)
        return None if price is None else price.cost(prompt_tokens, completion_tokens)

    def unpriced(self, models: Iterable[str]) -> list[str]:
        return sorted({m for m in models if self.prices.get(m) is None})


def pricer_for(
    configs: Iterable[ModelConfig], prices: PriceList | None, source: str | None = None
) -> Pricer:
    """The price of every model and judge of a run (`configs`), looked up in `prices`."""
    found: dict[str, Price | None] = {}
    for config in configs:
        found[config.name] = _price(config, prices)
    return Pricer(found, prices.currency if prices else "USD", source)


def _price(config: ModelConfig, prices: PriceList | None) -> Price | None:
    if isinstance(config, FREE):
        return ZERO
    if prices is None:
        return None
    if config.name in prices.models:
        return prices.models[config.name]
    if isinstance(config, OpenAIModelConfig):
        return prices.models.get(config.model)
    return None


def run_models(config: RunConfig) -> list[ModelConfig]:
    """Every model a run may call: its models, then each track's judge."""
    judges = [j for t in config.tracks for j in judge_models(t.judge)]
    return [*config.models, *judges]


def run_pricer(config: RunConfig) -> Pricer:
    """The run's prices: its pricing file (when it names one) for each of its models and judges."""
    try:
        prices = load_prices(config.pricing) if config.pricing else None
    except ConfigError as err:
        raise ConfigError(f"pricing: {err}") from None
    return pricer_for(run_models(config), prices, config.pricing)
