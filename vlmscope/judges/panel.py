"""A judge panel: several judges asked each judge request, their verdicts aggregated.

A track asks a panel exactly as it asks one judge (`ask`) and reads the reply with its own
parser. The panel asks every member (each `repeats` times, each ask its own cached call), reads
each reply's verdict with the track's `VerdictCodec`, takes each member's most common verdict,
aggregates the members' (`majority` or `mean`, `JudgePanelConfig`) and answers with a reply that
states the aggregate the way the track's parser reads it. With fewer than `min_valid` members
giving a verdict, the reply states none (the track counts it unparseable); with no member
answering at all, the panel's reply fails as a judge's would. Each member call is noted with its
own verdict and the panel's (`vlmscope.judges.call_log`), which the summary reads for each
member's agreement with the panel and its stability over repeats
(`vlmscope.judges.panel_stats`).
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal, Protocol

from vlmscope.config import JudgePanelConfig
from vlmscope.judges.call_log import collecting, note
from vlmscope.judges.client import Judge
from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Request, Response, Status


class VerdictCodec(Protocol):
    """How a track's judge replies hold a verdict: read it, state it, and (for `mean`) place it
    on a number line. `numeric` says whether a mean of verdicts means anything."""

    numeric: bool
    neutral: str
    """A verdict that stands in where none is known yet (a dry run's judge replies)."""

    def read(self, reply: str) -> str | None:
        """The verdict of a reply, as text; None when it holds none."""
        ...

    def write(self, verdict: str) -> str:
        """A reply the track's parser reads as `verdict`."""
        ...

    def value(self, verdict: str) -> float: ...

    def nearest(self, value: float) -> str:
        """The verdict closest to `value` (a mean), halves rounded up."""
        ...


Aggregate = Literal["majority", "mean"]


def aggregate_verdicts(
    verdicts: Sequence[str | None], codec: VerdictCodec, how: Aggregate, min_valid: int
) -> str | None:
    """The panel's verdict from its members' (in member order), None below `min_valid`."""
    valid = [v for v in verdicts if v is not None]
    if len(valid) < min_valid or not valid:
        return None
    if how == "mean":
        return codec.nearest(sum(codec.value(v) for v in valid) / len(valid))
    return most_common(valid)


def most_common(verdicts: Sequence[str]) -> str:
    """The most common verdict; a tie goes to the one that came first."""
    counts = Counter(verdicts)
    top = max(counts.values())
    return next(v for v in verdicts if counts[v] == top)


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


class PanelJudge(Judge):
    """Asks `members` as one judge (see the module docstring)."""

    def __init__(
        self, members: Sequence[Judge], config: JudgePanelConfig, codec: VerdictCodec
    ) -> None:
        self.members = list(members)
        self.config = config
        self.codec = codec
        self.gate = None  # each member passes its own gate
        self.phase = members[0].phase
        self.counts = Counter()

    @property
    def name(self) -> str:
        return self.config.panel_name

    @property
    def identity(self) -> dict[str, Any]:
        return {
            "panel": [m.identity for m in self.members],
            "aggregate": self.config.aggregate,
            "min_valid": self.config.min_valid,
            "repeats": self.config.repeats,
        }

    def describe(self, settings: JudgeSettings) -> dict[str, Any]:
        return {
            "judge": self.name,
            "panel": [m.describe(settings) for m in self.members],
            "aggregate": self.config.aggregate,
            "min_valid": self.config.min_valid,
            "repeats": self.config.repeats,
        }

    async def ask(self, request: Request, *, attempt: int = 0, repeat: int = 0) -> Response:
        asked = await asyncio.gather(*(self._member(m, request, attempt) for m in self.members))
        verdicts = [verdict for verdict, _, _ in asked]
        replies = [r for _, member_replies, _ in asked for r in member_replies]
        panel = aggregate_verdicts(
            verdicts, self.codec, self.config.aggregate, self.config.min_valid
        )
        for _, _, calls in asked:
            for call in calls:
                note(replace(call, panel=self.name, panel_verdict=panel or ""))
        if not any(r.ok for r in replies):
            errors = "; ".join(dict.fromkeys(r.error or r.status.value for r in replies))
            return Response(text="", status=Status.REQUEST_FAILED, error=f"panel: {errors}")
        if panel is None:
            given = sum(v is not None for v in verdicts)
            return Response(
                text=f"(no panel verdict: {given} of {len(verdicts)} judges gave one, "
                f"min_valid {self.config.min_valid})"
            )
        return Response(text=self.codec.write(panel))

    async def _member(
        self, member: Judge, request: Request, attempt: int
    ) -> tuple[str | None, list[Response], list[Any]]:
        """The member's verdict (its most common over repeats), its replies, its calls."""
        replies: list[Response] = []
        verdicts: list[str] = []
        calls = []
        for repeat in range(self.config.repeats):
            with collecting() as inner:
                reply = await member.ask(request, attempt=attempt, repeat=repeat)
            verdict = self.codec.read(reply.text) if reply.ok else None
            calls += [replace(c, verdict=verdict or "") for c in inner]
            replies.append(reply)
            if verdict is not None:
                verdicts.append(verdict)
        return (most_common(verdicts) if verdicts else None), replies, calls
