"""A run's budget (`--budget USD`): no request is sent that would take the spending past it.

Before a request is sent, its cost is estimated as the dry run estimates it (its prompt's
tokens counted, its reply's expected, `vlmscope.runner.token_estimate`, at the pricing file's
prices) and reserved; the run stops before the first request whose reservation would pass the
budget, counting what was spent (each answer's own tokens, once it is in) and what is reserved
for requests in flight. Every answer in by then is in the cache, so the same command with a
larger budget goes on exactly where this one stopped, and asks nothing twice.

The estimate of a reply is its expected length, not its limit: a reply longer than expected
costs more than was reserved for it, so the spending can end above the budget by that much.
Under several processes each gets an equal share of the budget for generation; the judging
that follows (main process) has what is left of the whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vlmscope.config import ConfigError
from vlmscope.messages import Request, Response
from vlmscope.runner.pricing import Pricer
from vlmscope.runner.token_estimate import ModelEstimate


class BudgetReached(RuntimeError):
    """The run stopped before a request that would have passed the budget."""

    def __init__(
        self, limit: float, spent: float, model: str | None, cost: float | None, currency: str
    ) -> None:
        self.limit = limit
        self.spent = spent
        self.model = model
        self.cost = cost
        self.currency = currency
        super().__init__(self.report())

    def report(self) -> str:
        next_one = (
            f"; the next request (to {self.model}, about {self.cost:.4f} {self.currency}) "
            "would pass it"
            if self.model is not None and self.cost is not None
            else ""
        )
        return (
            f"budget reached: spent {self.spent:.4f} of {self.limit:.4f} {self.currency}"
            f"{next_one}. Every answer so far is cached: run the same command with a larger "
            "--budget (or none) to go on where this run stopped."
        )


@dataclass(frozen=True)
class Ticket:
    model: str
    cost: float


class Budget:
    """The gate of every model and judge request of a run (`vlmscope.judges.client.CallGate`)."""

    def __init__(
        self,
        limit: float,
        pricer: Pricer,
        estimates: Mapping[str, ModelEstimate],
        *,
        spent: float = 0.0,
    ) -> None:
        self.limit = limit
        self.pricer = pricer
        self.estimates = estimates
        self.spent = spent
        self.reserved = 0.0
        self.stopped = False
        self._refused: tuple[str, float] | None = None

    def estimate(self, model: str, request: Request) -> float:
        estimate = self.estimates[model]
        cost = self.pricer.cost(
            model, estimate.prompt_tokens(request), estimate.output_tokens(request)
        )
        return 0.0 if cost is None else cost

    def reserve(self, model: str, request: Request) -> Ticket:
        """Reserve the request's estimated cost, or raise `BudgetReached` (and stay stopped)."""
        cost = self.estimate(model, request)
        if self.stopped or self.spent + self.reserved + cost > self.limit:
            self.stopped = True
            self._refused = self._refused or (model, cost)
            raise self.reached()
        self.reserved += cost
        return Ticket(model, cost)

    def settle(self, ticket: object, response: Response) -> None:
        """Replace the reservation by what the answer cost (its own tokens)."""
        assert isinstance(ticket, Ticket)
        self.reserved -= ticket.cost
        usage = response.usage
        cost = self.pricer.cost(ticket.model, usage.prompt_tokens, usage.completion_tokens)
        self.spent += ticket.cost if cost is None else cost

    def admit(self, model: str, requests: Sequence[Request]) -> list[Ticket]:
        """Reservations for the longest first run of `requests` that fits."""
        tickets = []
        for request in requests:
            try:
                tickets.append(self.reserve(model, request))
            except BudgetReached:
                break
        return tickets

    @property
    def refused(self) -> tuple[str, float] | None:
        """The model and estimated cost of the first request this budget refused."""
        return self._refused

    def reached(self) -> BudgetReached:
        model, cost = self._refused or (None, None)
        return BudgetReached(self.limit, self.spent, model, cost, self.pricer.currency)


def check_priced(pricer: Pricer, models: Sequence[str], source: str) -> None:
    """A budget needs a price for every model and judge a run may call."""
    missing = pricer.unpriced(models)
    if missing:
        where = f"the pricing file {pricer.source}" if pricer.source else "no pricing file given"
        raise ConfigError(
            f"{source}: budget_usd needs a price for every model and judge the run calls; "
            f"{where} has none for: {', '.join(missing)} (pricing: FILE, see "
            "configs/pricing_example.yaml)"
        )
