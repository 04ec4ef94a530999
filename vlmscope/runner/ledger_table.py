"""The ledger as the end of a run prints it: requests, tokens, seconds and cost per model, per
track, per phase, and in all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vlmscope.runner.ledger import RunTotals, Tally
from vlmscope.shipped_configs import config_path
from vlmscope.shown_numbers import money_digits, money_number

HEADER = ["totals", "requests", "asked", "failed", "prompt tok", "completion tok", "reasoning tok",
          "call s", "cost", "spent now"]  # fmt: skip


def money(value: float | None, currency: str = "USD") -> str:
    """`0.0123 USD`; `n/a` when a model behind it has no price."""
    if value is None:
        return "n/a"
    return f"{money_number(value):,.{money_digits(value)}f} {currency}"


def aligned(rows: Sequence[Sequence[str]], left: int, *, total_rule: bool = False) -> list[str]:
    """`rows` as lines of columns two spaces apart, the first `left` columns flush left and the
    numbers after them flush right, with a rule under the header (and above the last row, the
    total, when `total_rule`)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    rule = "  ".join("-" * w for w in widths)
    lines.insert(1, rule)
    if total_rule:
        lines.insert(-1, rule)
    return lines


def _row(label: str, tally: Tally, currency: str) -> list[str]:
    return [
        label,
        str(tally.requests),
        str(tally.asked),
        str(tally.failed),
        str(tally.prompt_tokens),
        str(tally.completion_tokens),
        str(tally.reasoning_tokens),
        f"{tally.latency_s:.1f}",
        money(tally.cost_usd, currency),
        money(tally.spent_usd, currency),
    ]


def format_ledger(totals: RunTotals, pricing: str | None) -> str:
    """The ledger table; `pricing` names the prices' file (None: none was given)."""
    currency = totals.currency
    rows = [HEADER]
    rows += [_row(f"model {name}", t, currency) for name, t in totals.by_model.items()]
    rows += [_row(f"track {name}", t, currency) for name, t in totals.by_track.items()]
    rows += [_row(f"phase {name}", t, currency) for name, t in totals.by_phase.items()]
    rows.append(_row("total", totals.total, currency))
    lines = aligned(rows, 1)
    source = _prices_source(pricing)
    lines.insert(
        0,
        f"ledger: every call the results stand on (asked: sent by this run), tokens as each "
        f"backend counted them, a model's row with the judging of its answers; {source}",
    )
    if totals.unpriced:
        lines.append(f"no price for: {', '.join(totals.unpriced)} (their cost reads n/a)")
    return "\n".join(line.rstrip() for line in lines)


def _prices_source(pricing: str | None) -> str:
    """Where the prices came from, as `load_prices` found them: a `configs/` path that is not
    here (the demo run from another folder) was read from the copy shipped with vlmscope."""
    if not pricing:
        return "no pricing file (--pricing FILE)"
    read, note = config_path(Path(pricing))
    return f"prices from {pricing}" + (f" (the copy shipped with vlmscope, {read})" if note else "")
