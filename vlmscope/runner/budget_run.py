"""A run's budget, set up from its config and shared between its processes.

The budget is split, not shared: each process answers its share of the requests, so for
generation each gets an equal share of the budget (`share_budget`) and admits against it alone,
with no traffic between processes per request; together they cannot pass the whole. When any
share refuses a request, every process stops after the round (`stopped_together`), reporting
the whole budget and what all of them spent. The judging, on the main process, then has the
whole budget less what every process spent (`whole_budget`).

A split budget can stop a run while another process's share has money left (the shares'
requests differ in size); that is the price of admitting without a round trip, and a resume
with the same budget goes on with what is left.
"""

from __future__ import annotations

from vlmscope.config import RunConfig
from vlmscope.runner.budget import Budget, BudgetReached, check_priced
from vlmscope.runner.cache_reader import CacheReader
from vlmscope.runner.distributed import ProcessGroup
from vlmscope.runner.pricing import Pricer, run_models
from vlmscope.runner.token_estimate import EstimateSettings, estimate_for


def run_budget(
    config: RunConfig, pricer: Pricer, settings: EstimateSettings, source: str
) -> Budget:
    """The run's budget; `ConfigError` when a model it may call has no price."""
    assert config.budget_usd is not None
    models = run_models(config)
    check_priced(pricer, [m.name for m in models], source)
    reader = CacheReader(config.cache_file)
    try:
        estimates = {m.name: estimate_for(m, settings, reader) for m in models}
    finally:
        reader.close()
    return Budget(config.budget_usd, pricer, estimates)


def share_budget(budget: Budget | None, group: ProcessGroup) -> Budget | None:
    """This process's share of the budget for generation."""
    if budget is None or group.world_size == 1:
        return budget
    return Budget(budget.limit / group.world_size, budget.pricer, budget.estimates)


def whole_budget(budget: Budget | None, share: Budget | None, group: ProcessGroup) -> Budget | None:
    """The whole budget less what every process spent on generation."""
    if budget is None or share is None or share is budget:
        return budget
    spent = sum(group.gather([share.spent]))
    return Budget(budget.limit, budget.pricer, budget.estimates, spent=spent)


def stopped_together(budget: Budget | None, group: ProcessGroup) -> BudgetReached | None:
    """The stop every process raises once any share refused a request (None: go on): the
    whole budget, what every process spent, and the first refused request by rank."""
    if budget is None:
        return None
    states = group.gather([(budget.stopped, budget.spent, budget.refused)])
    if not any(stopped for stopped, _, _ in states):
        return None
    model, cost = next((r for _, _, r in states if r is not None), (None, None))
    spent = sum(spent for _, spent, _ in states)
    whole = budget.limit * group.world_size  # the shares are equal (`share_budget`)
    return BudgetReached(whole, spent, model, cost, budget.pricer.currency)
