"""The text of a result dataset's card: what its numbers are, their scale, who judged them.

A result folder travels alone (a download, a Hub repo), so its README says what a reader of
the terminal or the Space would otherwise have to be told: the track's metrics (its
`TrackSpec.metrics`), the scale of each surface (0-1 in the datasets and the terminal table, %
in the Space, Elo-scale points on boards), the judge or grader, any stand-in that makes the
numbers meaningless, and the run config's `note:` (the demo's says what each number means).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vlmscope.stand_ins import StandIn
from vlmscope.tracks.registry import spec_for_results

SCALES = (
    "Scales: rates and scores (a number between 0 and 1, such as an accuracy or F) are "
    "fractions here, in `load_dataset(...)` and in the terminal table; the leaderboard Space "
    "shows them as percentages (x100). Ratings (Bradley-Terry, ProBench's scores, the joint "
    "boards) are points on the Elo scale, shown as they are with their 95% interval, and win "
    "rates are percentages everywhere. Counts are counts."
)
STAND_IN_WARNING = (
    "**These numbers come from stand-ins and measure nothing about the models**; they show "
    "that the pipeline runs:"
)
_ROLE_WORDS = {"answers": "answers", "judge": "verdicts", "grader": "grades"}


def stand_in_lines(stand_ins: Sequence[StandIn]) -> list[str]:
    """One line per stand-in: what it replaced and what it is."""
    return [f"- {_ROLE_WORDS.get(s.role, s.role)} by `{s.name}`: {s.what}" for s in stand_ins]


def track_card(
    track: str, summary: Mapping[str, Any], stand_ins: Sequence[StandIn], note: str
) -> str:
    """The card text of one (model, track) result, below its title."""
    parts = [
        "`details`: one row per sample (response, parsed answer, scores, status). "
        "`summary`: the track's scores (`scores`, typed: numbers and structs) with counts by "
        "status, config hash and package versions.",
        _metrics(track),
        SCALES,
        _judging(summary),
    ]
    return _joined(parts, stand_ins, note)


def board_card(track: str, stand_ins: Sequence[StandIn], note: str) -> str:
    """The card text of a joint rating board, below its title."""
    parts = [
        "`summary`: one rating board (every model's rating, 95% interval, win rate, rank; "
        "settings; style-controlled and per-category companions), typed. "
        "`details`: the battles or verdicts it was fitted on, one per row.",
        _metrics(track),
        SCALES,
    ]
    return _joined(parts, stand_ins, note)


def _joined(parts: list[str], stand_ins: Sequence[StandIn], note: str) -> str:
    if stand_ins:
        parts.append("\n".join([STAND_IN_WARNING, *stand_in_lines(stand_ins)]))
    if note.strip():
        parts.append("Note from the run's config:\n\n" + note.strip())
    return "\n\n".join(p for p in parts if p)


def _metrics(track: str) -> str:
    spec = spec_for_results(track)
    if spec is None:
        return f"Track `{track}`: its numbers are those of its summary."
    headlines = ", ".join(h.label for h in spec.headlines)
    shown = f" Headline numbers: {headlines}." if headlines else ""
    return f"{spec.title}: {spec.metrics or 'the numbers of its summary.'}{shown}"


def _judging(summary: Mapping[str, Any]) -> str:
    """Who judged or graded: the summary's `judge` (or a grader's protocol), else none."""
    judge = summary.get("judge")
    grader = summary.get("grader")
    if isinstance(grader, Mapping) and grader.get("protocol"):
        graded = f"Graded by {grader['protocol']}."
        if isinstance(judge, Mapping) and judge.get("judge"):
            graded += f" Judge: `{judge['judge']}`."
        return graded
    if isinstance(judge, Mapping) and judge.get("judge"):
        settings = ", ".join(
            f"{k} {v}" for k, v in judge.items() if k != "judge" and isinstance(v, int | float)
        )
        return f"Judge: `{judge['judge']}`" + (f" ({settings})." if settings else ".")
    return "No judge: every score comes from the track's rule-based metrics."
