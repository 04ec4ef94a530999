"""The dry run's table: one line per track, phase and model, then the totals."""

from __future__ import annotations

from vlmscope.cli.run_estimate_bound import bound_table
from vlmscope.config import RunConfig
from vlmscope.runner.estimate import DryRun, PhaseEstimate
from vlmscope.runner.ledger_table import aligned, money

HEADER = ["track", "phase", "model", "requests", "cached", "to ask", "input tok", "output tok",
          "cost"]  # fmt: skip


def _cells(line: PhaseEstimate, currency: str) -> list[str]:
    return [
        line.track,
        line.phase,
        line.model,
        str(line.requests),
        str(line.cached),
        str(line.to_ask),
        str(line.input_tokens),
        str(line.output_tokens),
        money(line.cost_usd, currency),
    ]


def estimate_table(result: DryRun, config: RunConfig, currency: str = "USD") -> str:
    lines = result.lines
    total = PhaseEstimate("total", "", "")
    for line in lines:
        total.requests += line.requests
        total.cached += line.cached
        total.input_tokens += line.input_tokens
        total.output_tokens += line.output_tokens
        total.cost_usd = (
            None
            if total.cost_usd is None or line.cost_usd is None
            else total.cost_usd + line.cost_usd
        )
    rows = [HEADER, *(_cells(x, currency) for x in lines), _cells(total, currency)]
    text = aligned(rows, 3, total_rule=True)
    counted = dict.fromkeys(f"  {x.model}: input {x.counted}; output {x.output}" for x in lines)
    pricing = config.pricing or "no pricing file (--pricing FILE): n/a but for the stand-ins"
    notes = [
        f"dry run: nothing was sent or written; cached answers read from {config.cache_file}",
        *text,
        "tokens of the requests still to ask; cost at the prices of " + pricing,
        "how tokens were counted:",
        *counted,
        *bound_table(lines, currency),
    ]
    return "\n".join(line.rstrip() for line in notes)
