"""The dry run's second table: the upper bound beside the expected requests of each line."""

from __future__ import annotations

from collections.abc import Sequence

from vlmscope.runner.estimate import PhaseEstimate
from vlmscope.runner.estimate_bound import sends, sends_cost
from vlmscope.runner.ledger_table import aligned, money

HEADER = ["track", "phase", "model", "to ask", "at most", "input tok", "output tok", "cost",
          "max_retries", "sends", "cost if billed"]  # fmt: skip


def _sum(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _cells(line: PhaseEstimate, currency: str) -> list[str]:
    bound = line.bound if line.bound is not None else line
    return [
        line.track,
        line.phase,
        line.model,
        str(line.to_ask),
        str(bound.to_ask),
        str(bound.input_tokens),
        str(bound.output_tokens),
        money(bound.cost_usd, currency),
        str(line.max_retries),
        str(sends(line)),
        money(sends_cost(line), currency),
    ]


def bound_table(lines: Sequence[PhaseEstimate], currency: str = "USD") -> list[str]:
    """The bound's lines, a total, and what each column counts."""
    bounds = [x.bound if x.bound is not None else x for x in lines]
    total = [
        "total",
        "",
        "",
        str(sum(x.to_ask for x in lines)),
        str(sum(b.to_ask for b in bounds)),
        str(sum(b.input_tokens for b in bounds)),
        str(sum(b.output_tokens for b in bounds)),
        money(_sum([b.cost_usd for b in bounds]), currency),
        "",
        str(sum(sends(x) for x in lines)),
        money(_sum([sends_cost(x) for x in lines]), currency),
    ]
    rows = [HEADER, *(_cells(x, currency) for x in lines), total]
    return [
        "upper bound: every judge reply without a verdict asked again as the track's protocol "
        "says (ProBench up to 3 attempts a game, VisionArena-Bench one follow-up, SimpleVQA "
        "once more; MEGA-Bench never)",
        *aligned(rows, 3, total_rule=True),
        "at most: requests still to ask when every re-ask is asked (input/output tok and cost: "
        "theirs); sends: each of them tried 1 + max_retries times, the backend's retries of a "
        "transient failure (timeout, 429, 5xx), with their cost if every try were billed",
    ]
