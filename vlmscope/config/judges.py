"""A track's judge: one model config, or a panel of them whose verdicts are aggregated."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from vlmscope.config.fields import _Strict
from vlmscope.config.models import ModelConfig


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
