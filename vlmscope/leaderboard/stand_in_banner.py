"""The banner a page shows when its numbers come from stand-ins (`vlmscope.stand_ins`).

A demo board ranks a random-weight tiny model above the oracle because a coin picked the
verdicts; nothing in the numbers says so. Every summary and board records its stand-ins, and
each page whose results hold any shows this banner first, naming each one and what it
replaced, so a screenshot of the page cannot be read as a measurement. Names come from the data
and are shown as text (`markdown_literal`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from vlmscope.leaderboard.records import BoardRecord, SummaryRecord
from vlmscope.leaderboard.safe_html import markdown_literal
from vlmscope.stand_ins import StandIn, merged

BANNER_ID = "stand-in-banner"
HEADLINE = (
    "⚠️ **Stand-ins: these numbers measure nothing about the models.** They come from parts "
    "that let the pipeline run offline, not from a real model, judge or grader:"
)
_REPLACED = {"answers": "answers", "judge": "verdicts", "grader": "grades"}


def banner(stand_ins: Sequence[StandIn]) -> str:
    """The banner's Markdown for `stand_ins`, or "" when there are none."""
    if not stand_ins:
        return ""
    lines = [
        f"- {_REPLACED.get(s.role, markdown_literal(s.role))} by **{markdown_literal(s.name)}**: "
        f"{markdown_literal(s.what)}"
        for s in stand_ins
    ]
    return "\n".join([HEADLINE, *lines])


def track_stand_ins(
    summaries: Iterable[SummaryRecord], boards: Mapping[str, BoardRecord], track: str
) -> list[StandIn]:
    """The stand-ins behind a track's page: its models' summaries and its board."""
    found = [r.stand_ins for r in summaries if r.track == track]
    if track in boards:
        found.append(boards[track].stand_ins)
    return merged(found)


def all_stand_ins(
    summaries: Iterable[SummaryRecord], boards: Mapping[str, BoardRecord]
) -> list[StandIn]:
    """The stand-ins behind anything the overview shows."""
    return merged([*(r.stand_ins for r in summaries), *(b.stand_ins for b in boards.values())])
