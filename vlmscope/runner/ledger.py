"""The ledger: what a run's results cost, in requests, tokens, seconds and money.

Every call behind a (model, track) result is one `Call` (`vlmscope.judges.call_log`): each turn
a model answered (phase `generate`) and each judge call its scoring made (`judge`). A summary's
`ledger` adds them up per phase, and per judge within the judge phase:

- `requests`: every call the results stand on, `asked` those sent by this run (the rest came
  from the cache, paid for by an earlier run), `failed` those without an answer;
- `prompt_tokens`, `completion_tokens` (reasoning included, as servers count them),
  `reasoning_tokens` (the servers' counts, or estimated where a server gave none), as each
  call's backend counted them; stand-ins (the oracle, the coin) count none; `asked_...` the
  same over the calls this run sent (what the servers counted for this run);
- `latency_s`: the calls' seconds added up (not the run's wall time: calls overlap);
- `cost_usd`: the tokens at the pricing file's prices, None when a model has no price (then
  `unpriced` names it); `spent_usd` the same for the calls this run asked.

What this run did (`asked`, the `asked_...` tokens, `spent_usd`) and the calls' seconds differ
between two runs of one config (a resumed run finds cached what a killed one asked), so
`split_ledger` keeps them apart: the summary's `ledger` holds what the results stand on, the
same however they were reached; the summary's `run_counts` hold the rest, beside the run's
other counts of cached and generated answers.

`run_totals` adds the ledgers up per model, per track and per phase for the end of the run.
Everything here is pure: the runner and the CLI do the reading and the printing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from vlmscope.judges.call_log import GENERATE, PHASES, Call
from vlmscope.runner.pricing import Pricer

LEDGER = "ledger"
"""The summary key the ledger lives under (a plain nested mapping), and the `run_counts` key of
its part that belongs to this run."""
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")
THIS_RUN = ("asked", *(f"asked_{t}" for t in TOKEN_FIELDS), "latency_s", "spent_usd")
"""The fields of a tally (and of a ledger) that say what one run did, not what results hold."""


@dataclass
class Tally:
    """Calls added up; costs are filled in by `priced`."""

    requests: int = 0
    asked: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    asked_prompt_tokens: int = 0
    asked_completion_tokens: int = 0
    asked_reasoning_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float | None = 0.0
    spent_usd: float | None = 0.0

    def add_call(self, call: Call, pricer: Pricer) -> None:
        self.requests += 1
        self.failed += not call.ok
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.reasoning_tokens += call.reasoning_tokens
        self.latency_s += call.latency_s
        cost = pricer.cost(call.model, call.prompt_tokens, call.completion_tokens)
        self.cost_usd = _plus(self.cost_usd, cost)
        if not call.cached:
            self.asked += 1
            self.asked_prompt_tokens += call.prompt_tokens
            self.asked_completion_tokens += call.completion_tokens
            self.asked_reasoning_tokens += call.reasoning_tokens
            self.spent_usd = _plus(self.spent_usd, cost)

    def add(self, other: Mapping[str, Any]) -> None:
        """Add another tally given as JSON (a summary's)."""
        counts = (
            "requests",
            "asked",
            "failed",
            *TOKEN_FIELDS,
            *(f"asked_{t}" for t in TOKEN_FIELDS),
        )
        for name in counts:
            setattr(self, name, getattr(self, name) + int(other.get(name) or 0))
        self.latency_s += float(other.get("latency_s") or 0.0)
        self.cost_usd = _plus(self.cost_usd, other.get("cost_usd"))
        self.spent_usd = _plus(self.spent_usd, other.get("spent_usd"))

    def to_json(self) -> dict[str, Any]:
        record = asdict(self)
        record["latency_s"] = round(self.latency_s, 3)
        return record


def _plus(total: float | None, cost: float | None) -> float | None:
    """Unknown (None) stays unknown: a sum with an unpriced part has no price."""
    return None if total is None or cost is None else total + cost


def tally(calls: Iterable[Call], pricer: Pricer) -> Tally:
    total = Tally()
    for call in calls:
        total.add_call(call, pricer)
    return total


def ledger_summary(
    model: str, generated: Sequence[Call], judged: Sequence[Call], pricer: Pricer
) -> dict[str, Any]:
    """A (model, track) summary's `ledger`: the generate and judge phases, each judge's share,
    the total cost and which models had no price."""
    by_judge: dict[str, list[Call]] = {}
    for call in judged:
        by_judge.setdefault(call.model, []).append(call)
    judge_phase = tally(judged, pricer).to_json()
    if by_judge:
        judge_phase["by_judge"] = {
            name: tally(calls, pricer).to_json() for name, calls in sorted(by_judge.items())
        }
    generate_phase = tally(generated, pricer).to_json()
    ledger: dict[str, Any] = {
        "currency": pricer.currency,
        "pricing": pricer.source,
        GENERATE: {"model": model, **generate_phase},
        "judge": judge_phase,
        "cost_usd": _plus(generate_phase["cost_usd"], judge_phase["cost_usd"]),
        "spent_usd": _plus(generate_phase["spent_usd"], judge_phase["spent_usd"]),
        "unpriced": pricer.unpriced([model, *by_judge]) if generated else pricer.unpriced(by_judge),
    }
    return ledger


def split_ledger(ledger: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(what the results stand on, what this run did) of a ledger: the same nesting, each
    field on one side (`THIS_RUN`)."""
    stable: dict[str, Any] = {}
    this_run: dict[str, Any] = {}
    for key, value in ledger.items():
        if isinstance(value, Mapping):
            kept, ran = split_ledger(value)
            stable[key] = kept
            if ran:
                this_run[key] = ran
        elif key in THIS_RUN:
            this_run[key] = value
        else:
            stable[key] = value
    return stable, this_run


def merged_ledger(stable: Mapping[str, Any], this_run: Mapping[str, Any]) -> dict[str, Any]:
    """The two sides of `split_ledger` as one ledger again."""
    merged = dict(stable)
    for key, value in this_run.items():
        inner = merged.get(key)
        merged[key] = merged_ledger(inner, value) if isinstance(inner, Mapping) else value
    return merged


@dataclass(frozen=True)
class RunTotals:
    """A run's ledgers added up: per model (its answers and the judging of them), per track, per
    phase, and in all."""

    by_model: dict[str, Tally]
    by_track: dict[str, Tally]
    by_phase: dict[str, Tally]
    total: Tally
    unpriced: tuple[str, ...]
    currency: str = "USD"

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "by_model": {k: v.to_json() for k, v in self.by_model.items()},
            "by_track": {k: v.to_json() for k, v in self.by_track.items()},
            "by_phase": {k: v.to_json() for k, v in self.by_phase.items()},
            "total": self.total.to_json(),
            "unpriced": list(self.unpriced),
        }


def run_totals(ledgers: Iterable[tuple[str, str, Mapping[str, Any]]]) -> RunTotals:
    """`(model, track, ledger)` of each summary, added up."""
    by_model: dict[str, Tally] = {}
    by_track: dict[str, Tally] = {}
    by_phase: dict[str, Tally] = {}
    total = Tally()
    unpriced: set[str] = set()
    currency = "USD"
    for model, track, ledger in ledgers:
        currency = str(ledger.get("currency") or currency)
        unpriced.update(ledger.get("unpriced") or ())
        for phase in PHASES:
            part = ledger.get(phase)
            if not isinstance(part, Mapping):
                continue
            for target in (
                by_model.setdefault(model, Tally()),
                by_track.setdefault(track, Tally()),
                by_phase.setdefault(phase, Tally()),
                total,
            ):
                target.add(part)
    return RunTotals(by_model, by_track, by_phase, total, tuple(sorted(unpriced)), currency)
