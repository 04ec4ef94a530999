"""What a judge panel's member calls say about its members (a summary's `panel`).

From the calls a panel noted (`vlmscope.judges.call_log.Call`, `panel` set):

- per member, `agreement`: over the panel's asks where both the member and the panel gave a
  verdict, the share where the member's verdict (its most common over repeats) is the
  panel's; `valid`: the share of its replies that held a verdict;
- per member, with `repeats` > 1, `stability`: over the asks it answered more than once, the
  share whose repeats all gave the same verdict (no verdict counts as one);
- `asks` and `without_verdict`: how many asks the panel had and how many ended without an
  aggregate (fewer than `min_valid` members gave one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vlmscope.judges.call_log import Call
from vlmscope.judges.panel import most_common


def _share(top: int, bottom: int) -> float | None:
    return top / bottom if bottom else None


def panel_facts(calls: Sequence[Call]) -> dict[str, Any] | None:
    """The panel facts of the calls a panel noted; None when there are none."""
    member_calls = [c for c in calls if c.panel]
    if not member_calls:
        return None
    asks: dict[tuple[str, str, int], dict[str, list[Call]]] = {}
    for call in member_calls:
        asks.setdefault((call.panel, call.request, call.attempt), {}).setdefault(
            call.model, []
        ).append(call)
    members = list(dict.fromkeys(c.model for c in member_calls))
    agree = dict.fromkeys(members, 0)
    compared = dict.fromkeys(members, 0)
    stable = dict.fromkeys(members, 0)
    repeated = dict.fromkeys(members, 0)
    without = 0
    for by_member in asks.values():
        panel_verdict = next(iter(by_member.values()))[0].panel_verdict
        without += not panel_verdict
        for member, own in by_member.items():
            verdicts = [c.verdict for c in own if c.verdict]
            if len(own) > 1:
                repeated[member] += 1
                stable[member] += len({c.verdict for c in own}) == 1
            if verdicts and panel_verdict:
                compared[member] += 1
                agree[member] += most_common(verdicts) == panel_verdict
    facts: dict[str, Any] = {
        "panel": member_calls[0].panel,
        "asks": len(asks),
        "without_verdict": without,
        "members": {},
    }
    for member in members:
        own_calls = [c for c in member_calls if c.model == member]
        entry: dict[str, Any] = {
            "calls": len(own_calls),
            "valid": _share(sum(bool(c.verdict) for c in own_calls), len(own_calls)),
            "compared": compared[member],
            "agreement": _share(agree[member], compared[member]),
        }
        if repeated[member]:
            entry |= {
                "repeated_asks": repeated[member],
                "stability": _share(stable[member], repeated[member]),
            }
        facts["members"][member] = entry
    return facts
