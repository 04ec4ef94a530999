"""The dry run's upper bound: every request a run could send at worst.

The expected figures assume each judge reply holds a verdict. A reply that does not is asked
again by the tracks whose protocol says so (ProBench: up to 3 attempts a game; VisionArena-Bench:
one follow-up turn; SimpleVQA: once more with the format reminder; MEGA-Bench's judged fields:
never). The dry run scores every answer a second time with a judge whose stand-in reply holds no
verdict in any track's reading (`UNREADABLE`), so each track's own rule asks every re-ask it
can; what that second pass notes is the line's bound. Generation has no re-asks: its bound is
its expected line.

Apart from those, a backend retries a request that failed transiently (a timeout, 429, 5xx) up
to its `max_retries` times; the bound counts that separately (`sends`), because such a failure
is usually not billed, and labels it as such.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

from vlmscope.config import RunConfig
from vlmscope.runner.pricing import Pricer, run_models


class PhaseEstimate(Protocol):
    """What of a dry-run line (`vlmscope.runner.estimate.PhaseEstimate`) the bound uses."""

    track: str
    phase: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    bound: Any
    max_retries: int

    @property
    def to_ask(self) -> int: ...


UNREADABLE = ""
"""A judge reply with no verdict in it: no label, grade or score any track reads."""


def max_retries(config: RunConfig) -> dict[str, int]:
    """Each model's retries of a transient failure, by name (0 for a backend with none)."""
    return {m.name: int(getattr(m, "max_retries", 0)) for m in run_models(config)}


def attach_bounds(
    lines: Sequence[PhaseEstimate],
    worst: Sequence[PhaseEstimate],
    pricer: Pricer,
    config: RunConfig,
) -> None:
    """Give each expected line its bound (the worst pass's line of the same track, phase and
    model, priced; generation: the line itself) and its model's `max_retries`."""
    found = {(w.track, w.phase, w.model): w for w in worst}
    retries = max_retries(config)
    for line in lines:
        bound = found.get((line.track, line.phase, line.model))
        if bound is None:
            bound = dataclasses.replace(line, bound=None)  # type: ignore[type-var]
        else:
            bound.cost_usd = pricer.cost(bound.model, bound.input_tokens, bound.output_tokens)
        line.bound = bound
        line.max_retries = retries.get(line.model, 0)


def sends(line: PhaseEstimate) -> int:
    """Requests sent at worst: every bound request to ask, each tried 1 + max_retries times."""
    bound = line.bound if line.bound is not None else line
    return bound.to_ask * (1 + line.max_retries)


def sends_cost(line: PhaseEstimate) -> float | None:
    """The bound's cost if every try of every request were billed."""
    bound = line.bound if line.bound is not None else line
    return None if bound.cost_usd is None else bound.cost_usd * (1 + line.max_retries)
