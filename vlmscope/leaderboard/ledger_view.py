"""What each result cost, for the Space: one row per model and track, from the summaries'
`ledger` (`vlmscope.runner.ledger`).

Requests are every call the result stands on (the model's answers and the judging of them);
tokens as the backends counted them; the cost at the prices the run was given, empty where a
model had no price (or the run named no pricing file), never shown as 0. Results written
before the ledger existed have none and are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.track_info import track_title
from vlmscope.leaderboard.values import MISSING, number_at
from vlmscope.shown_numbers import money_number

LEDGER = "ledger"
PHASES = ("generate", "judge")
COLUMNS = ["Model", "Track", "Requests", "Judge requests", "Prompt tokens", "Completion tokens",
           "Reasoning tokens", "Cost (USD)", "Priced by"]  # fmt: skip
NOTE = (
    "### What the results cost\n"
    "Every call each result stands on: the model's answers and the judging of them (judge "
    "requests), with the tokens the backends counted (reasoning included in completion). The "
    "cost is at the prices the run was given; an empty cost means a model had no price."
)


def cost_frame(summaries: Iterable[SummaryRecord]) -> pd.DataFrame:
    rows = [
        _row(record, ledger)
        for record in summaries
        if isinstance(ledger := record.scores.get(LEDGER), Mapping)
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def _row(record: SummaryRecord, ledger: Mapping[str, Any]) -> list[object]:
    def total(key: str) -> int:
        return int(sum(number_at(ledger, phase, key) or 0 for phase in PHASES))

    cost = number_at(ledger, "cost_usd")
    return [
        record.model,
        track_title(record.track),
        total("requests"),
        int(number_at(ledger, "judge", "requests") or 0),
        total("prompt_tokens"),
        total("completion_tokens"),
        total("reasoning_tokens"),
        MISSING if cost is None else money_number(cost),
        Path(str(ledger["pricing"])).name if ledger.get("pricing") else "no pricing file",
    ]
