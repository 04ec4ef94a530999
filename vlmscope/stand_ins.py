"""Stand-ins: parts of a run that let the pipeline run offline but measure nothing.

A demo or a plumbing test replaces what a benchmark relies on with something cheap: the `coin`
backend as the judge (a verdict picked by hashing the request), a random-weight tiny model
(`vlmscope make-tiny-model`) answering or judging, SimpleVQA's `offline_match` grader instead
of the paper's LLM grading. Their numbers look like any others, so each one is named where the
numbers are: in the summary (`stand_ins`), the result card, and a banner on every page of the
Space that shows them. The oracle is not one: it answers with the references on purpose, to
check the scoring, and says so by its name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from vlmscope.config import CoinModelConfig, JudgePanelConfig, ModelConfig


@dataclass(frozen=True)
class StandIn:
    role: str
    """What it replaces: "answers" (a model's), "judge" (the verdicts) or "grader" (the grading)."""
    name: str
    """The model entry (`name:` in the config) or option (`offline_match`) that stands in."""
    what: str
    """What it is, in a few words a reader of the page understands."""

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> StandIn:
        return cls(
            str(raw.get("role") or ""), str(raw.get("name") or ""), str(raw.get("what") or "")
        )


def model_stand_in(model: ModelConfig, role: str) -> StandIn | None:
    """`model` as a stand-in when it is one: the coin, or a random-weight tiny model."""
    if isinstance(model, CoinModelConfig):
        return StandIn(
            role, model.name, "the coin backend, which picks a verdict by hashing the request"
        )
    arch = getattr(model, "tiny_arch", None)
    if arch is not None:
        return StandIn(role, model.name, f"a random-weight tiny {arch} model")
    return None


def merged(groups: Iterable[Iterable[StandIn]]) -> list[StandIn]:
    """Every stand-in of `groups` once, in the order first met."""
    return list(dict.fromkeys(s for group in groups for s in group))


def stand_ins_of(raw: Any) -> tuple[StandIn, ...]:
    """The `stand_ins` column of a summary row as read back (absent or null: none)."""
    if not isinstance(raw, list):
        return ()
    return tuple(StandIn.from_json(item) for item in raw if isinstance(item, Mapping))


def run_stand_ins(
    models: Iterable[ModelConfig],
    judge: ModelConfig | JudgePanelConfig | None,
    track: Iterable[StandIn],
) -> list[StandIn]:
    """The stand-ins behind a result: the models whose answers it holds, the track's judge
    (each judge of a panel), and the track's own (`Track.stand_ins`)."""
    answers = [model_stand_in(m, "answers") for m in models]
    judges = judge.judges if isinstance(judge, JudgePanelConfig) else [judge] if judge else []
    judged = [model_stand_in(j, "judge") for j in judges]
    return merged([[s for s in [*answers, *judged] if s is not None], track])
